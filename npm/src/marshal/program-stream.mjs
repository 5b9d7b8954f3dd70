// A program object -> the core's value stream (src/core/value_stream.h), in
// one walk over the object: no JSON text, no copies of the caller's arrays.
// Numbers go as raw bits (int32, or the double itself: NaN, ±Infinity and -0
// stay bit-exact, and the core refuses an integer Number beyond 2^53 where
// an integer belongs), BigInts as their digits, strings as UTF-8, object
// keys as ids defined on first use, byte arrays (and files, Blobs,
// Artifacts) by reference. What is written is what JSON.stringify would
// write: own enumerable keys in their order, toJSON(key) and getters called
// once, undefined/functions/symbols omitted (null in a list), boxed
// primitives unwrapped. The caller's object is only read.
import { EtpackError, invalidArgument } from '../errors.mjs';
import { isNanBits, nanBitsMarker } from './nan-bits.mjs';
import { isBytes } from '../bytes.mjs';
import { isBlob, SOURCE } from '../sources.mjs';

import { STREAM_MAGIC, STREAM_TAGS } from '../generated/stream-tags.mjs';

// The tags as plain constants (the walk's hot loop reads them), from
// src/core/value_stream_tags.def, the core reader's own table.
const { END, NULL, FALSE, TRUE, INT32, DOUBLE, STRING, OBJECT, ARRAY, KEY, KEY_DEF, BYTES } = STREAM_TAGS;
const MAGIC = [...STREAM_MAGIC].map((c) => c.charCodeAt(0));

// Programs nest about ten levels deep; anything far deeper is a mistake (or
// a cycle) and is refused before the stack runs out.
const MAX_PROGRAM_DEPTH = 200;

const ENCODER = new TextEncoder();

// The buffer is reused from call to call (a program's stream is about two
// thirds of its JSON text); one grown past this is left to the GC.
const KEEP_BYTES = 16 * 1024 * 1024;
const NAN_BYTES = [0, 0, 0, 0, 0, 0, 0xf8, 0x7f];  // the quiet NaN, as the JSON text route reads NaN
const F64 = new Float64Array(1);
const F64_BYTES = new Uint8Array(F64.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

// A byte field's reference, as the core reads it (bindings/marshal.h).
class ByteRef {
  constructor(json) {
    this.json = json;
  }
}

// The stream being written. Module state, not an object's fields: the walk
// is the hot loop of serializing an object, and plain variables are what
// the engine makes fastest. A call made from inside the walk (a toJSON()
// that serializes another program) saves and restores it.
let buf = new Uint8Array(64 * 1024);  // also the buffer the next call reuses
let pos = 0;
let keys = null;  // key -> id
let keySeen = null;  // by depth: the keys of the last object there (key())
let stack = null;  // the objects on the path from the root, by depth
let depth = 0;
let scope = null;
let busy = false;
let plainKeys = false;  // for-in over a plain object gives its own keys only

function noEnumerableOnObjectPrototype() {
  for (const k in Object.prototype) return k === undefined;  // any key at all: no
  return true;
}

function room(n) {
  let size = buf.length * 2;
  while (size < pos + n) size *= 2;
  const grown = new Uint8Array(size);
  grown.set(buf.subarray(0, pos));  // the stream so far, once per doubling
  buf = grown;
}

function tag(t) {
  if (pos + 1 > buf.length) room(1);
  buf[pos++] = t;
}

function u32(at, v) {
  buf[at] = v;
  buf[at + 1] = v >>> 8;
  buf[at + 2] = v >>> 16;
  buf[at + 3] = v >>> 24;
}

function number(v) {
  if (pos + 9 > buf.length) room(9);
  if ((v | 0) === v && (v !== 0 || 1 / v > 0)) {
    buf[pos] = INT32;
    u32(pos + 1, v);
    pos += 5;
    return;
  }
  buf[pos] = DOUBLE;
  if (v !== v) {
    for (let i = 0; i < 8; ++i) buf[pos + 1 + i] = NAN_BYTES[i];
  } else {
    F64[0] = v;  // the double's bits, -0 and the infinities included
    for (let i = 0; i < 8; ++i) buf[pos + 1 + i] = F64_BYTES[LITTLE_ENDIAN ? i : 7 - i];
  }
  pos += 9;
}

// UTF-8 of `s` at `at` (the caller made room for 3 bytes per unit): its
// length. ASCII (nearly every name) is copied unit by unit; anything else
// goes through TextEncoder (lone surrogates become U+FFFD, as in the JSON
// text route).
function utf8(at, s) {
  const n = s.length;
  for (let i = 0; i < n; ++i) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return i + ENCODER.encodeInto(s.slice(i), buf.subarray(at + i)).written;
    buf[at + i] = c;
  }
  return n;
}

// tag, uint32 length, UTF-8.
function text(t, s) {
  if (pos + 5 + 3 * s.length > buf.length) room(5 + 3 * s.length);
  const len = utf8(pos + 5, s);
  buf[pos] = t;
  u32(pos + 1, len);
  pos += 5 + len;
}

// KEY id, or on first use KEY_DEF id, uint32 length, UTF-8. `seen` holds
// the keys of the last object met at this depth with their ids, in pairs
// (this member's pair at `at`): objects of one kind in a row have the same
// keys, so most are found there by identity instead of looked up in `keys`.
function key(k, seen, at) {
  let id;
  if (seen[at] === k) {
    id = seen[at + 1];
  } else {
    id = keys.get(k);
    seen[at] = k;
    seen[at + 1] = id ?? keys.size;
  }
  if (id !== undefined) {
    if (pos + 5 > buf.length) room(5);
    buf[pos] = KEY;
    u32(pos + 1, id);
    pos += 5;
    return;
  }
  const next = keys.size;
  keys.set(k, next);
  if (pos + 9 + 3 * k.length > buf.length) room(9 + 3 * k.length);
  const len = utf8(pos + 9, k);
  buf[pos] = KEY_DEF;
  u32(pos + 1, next);
  u32(pos + 5, len);
  pos += 9 + len;
}

// A value JSON.stringify would write (false: one it omits). Objects come
// through prepare() first.
function value(v) {
  switch (typeof v) {
    case 'number': number(v); return true;
    case 'string': text(STRING, v); return true;
    case 'boolean': tag(v ? TRUE : FALSE); return true;
    case 'bigint': text(STRING, v.toString()); return true;
    case 'object':
      if (v === null) tag(NULL);
      else if (v instanceof ByteRef) text(BYTES, v.json);
      else container(v);
      return true;
    default: return false;  // undefined, functions, symbols
  }
}

function container(object) {
  const d = depth;
  if (d >= MAX_PROGRAM_DEPTH) {
    // Only now is it worth looking for a repeated object on the path.
    const path = stack.slice(0, d);
    const cycle = new Set(path).size < path.length;
    throw new EtpackError(cycle ? 'INVALID_ARGUMENT' : 'RESOURCE_LIMIT', cycle
      ? 'program refers to itself (a cycle): programs must be trees'
      : `program nests deeper than ${MAX_PROGRAM_DEPTH} levels`);
  }
  stack[d] = object;
  depth = d + 1;
  if (Array.isArray(object)) {
    tag(ARRAY);
    for (let i = 0; i < object.length; ++i) {
      let v = object[i];
      if (typeof v === 'number') {  // lists of numbers: sizes, args, indices
        number(v);
        continue;
      }
      if (typeof v === 'object' && v !== null) {
        const p = prepare(v, i);
        // The object itself (nearly always): walked at once.
        if (p === v) {
          container(v);
          continue;
        }
        v = p;
      }
      if (!value(v)) tag(NULL);
    }
  } else {
    tag(OBJECT);
    const seen = keySeen[d] ?? (keySeen[d] = []);
    let at = 0;
    // for-in over a plain object is the engine's fastest walk of its own
    // keys (reads by the key it gives are direct field loads), and it gives
    // exactly Object.keys() when nothing enumerable was added to
    // Object.prototype (checked once per call); other objects (class
    // instances, objects with no prototype) take Object.keys().
    if (plainKeys && Object.getPrototypeOf(object) === Object.prototype) {
      for (const k in object) {
        let v = object[k];
        if (typeof v === 'object' && v !== null) {
          const p = prepare(v, k);
          if (p === v) {
            key(k, seen, at);
            at += 2;
            container(v);
            continue;
          }
          v = p;
        }
        if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
        key(k, seen, at);
        at += 2;
        value(v);
      }
    } else {
      for (const k of Object.keys(object)) {
        let v = object[k];
        if (typeof v === 'object' && v !== null) {
          const p = prepare(v, k);
          if (p === v) {
            key(k, seen, at);
            at += 2;
            container(v);
            continue;
          }
          v = p;
        }
        if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
        key(k, seen, at);
        at += 2;
        value(v);
      }
    }
  }
  tag(END);
  depth = d;
}

// An object as JSON.stringify sees it: bytes become a reference (never a
// list), toJSON(key) is called, boxed primitives are unwrapped. Plain
// objects and arrays (nearly every node) skip the byte tests.
function prepare(v, k) {
  const proto = Object.getPrototypeOf(v);
  const plain = proto === Object.prototype || proto === Array.prototype;
  if ((!plain && !Array.isArray(v) && (isBytes(v) || isBlob(v))) || typeof v[SOURCE] === 'function') {
    return new ByteRef(JSON.stringify(scope.data(v, 'a program byte field')));
  }
  if (typeof v.toJSON === 'function') {
    v = v.toJSON(String(k));
    if (typeof v !== 'object' || v === null || Array.isArray(v) || Object.getPrototypeOf(v) === Object.prototype) return v;
  } else if (plain) {
    // A NaN other than the canonical one, by its bits (nan-bits.mjs).
    return v.nanBits !== undefined && isNanBits(v) ? nanBitsMarker(v) : v;
  }
  if (v instanceof Number) return Number(v);
  if (v instanceof String) return String(v);
  if (v instanceof Boolean) return v.valueOf();
  return v;
}

// The program's stream, valid until the next call (copy it out at once).
export function programStream(program, callScope) {
  if (program === null || typeof program !== 'object' || Array.isArray(program)) {
    throw invalidArgument('program must be an object or JSON text');
  }
  const outer = busy ? { buf, pos, keys, keySeen, stack, depth, scope } : null;
  if (outer) buf = new Uint8Array(64 * 1024);
  busy = true;
  pos = 0;
  keys = new Map();
  keySeen = [];
  stack = [];
  depth = 0;
  scope = callScope;
  plainKeys = noEnumerableOnObjectPrototype();
  try {
    if (pos + MAGIC.length > buf.length) room(MAGIC.length);
    for (const b of MAGIC) buf[pos++] = b;
    if (!value(prepare(program, ''))) throw invalidArgument('program must be an object or JSON text');
    const stream = buf.subarray(0, pos);
    // Not kept past a call when large: the next program gets a new one.
    if (buf.length > KEEP_BYTES) buf = new Uint8Array(64 * 1024);
    return stream;
  } catch (e) {
    if (e instanceof EtpackError) throw e;
    // A toJSON() or getter of the caller's that threw.
    throw new EtpackError('INVALID_ARGUMENT', `program could not be written as JSON: ${e?.message ?? e}`, { cause: e });
  } finally {
    keys = keySeen = stack = scope = null;
    busy = outer !== null;
    if (outer) ({ buf, pos, keys, keySeen, stack, depth, scope } = outer);
    if (outer) plainKeys = noEnumerableOnObjectPrototype();
  }
}
