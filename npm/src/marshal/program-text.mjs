// A program object -> JSON text for the core (programText, programPieces):
// the route for JSON text callers (programToJson) and the reference the
// value stream (program-stream.mjs) is checked against.
import { EtpackError, invalidArgument } from '../errors.mjs';
import { isBytes } from '../bytes.mjs';
import { isBlob, SOURCE } from '../sources.mjs';
import { setOwn } from './own.mjs';
import { isNanBits, nanBitsMarker } from './nan-bits.mjs';

const NUL = '\u0000';

// Program (object or JSON text) -> JSON text for the core. BigInts become
// digit strings; integer Numbers beyond 2^53 are marked so the core can
// reject them where an integer is expected (they may have been rounded);
// NaN, ±Infinity and -0 are written as the bare tokens NaN, Infinity,
// -Infinity and -0 (JSON.stringify would write null and 0); byte arrays (and
// files, Blobs, Artifacts) go by reference, never as integer lists. The
// caller's object is never modified: the walk copies only the arrays and
// objects on the path to a changed value, then plain JSON.stringify does
// the rest (much faster than a replacer function).
export function programText(program, scope) {
  return typeof program === 'string' ? program : programPieces(program, scope).join('');
}

// The same text as consecutive pieces, which HeapCopies.putText writes one
// after the other. V8 builds a long JSON.stringify result out of parts, and
// flattening that for the encoder cost more than the stringify itself (a
// 2.2 MB program: 8 ms against 7); pieces of a few kB are flat already.
export function programPieces(program, scope) {
  if (typeof program === 'string') return [program];
  if (program === null || typeof program !== 'object' || Array.isArray(program)) {
    throw invalidArgument('program must be an object or JSON text');
  }
  const walk = { scope, special: null, stack: [], depth: 0 };
  const pieces = [];
  try {
    writePieces(forJson(program, walk), pieces, 0);
  } catch (e) {
    if (e instanceof EtpackError) throw e;
    // A toJSON() or getter of the caller's that threw, or a value JSON
    // cannot hold.
    throw new EtpackError('INVALID_ARGUMENT', `program could not be written as JSON: ${e?.message ?? e}`, { cause: e });
  }
  // The special-number placeholders are strings with a per-call nonce, so
  // no string of the caller's can be mistaken for one (and none spans two
  // pieces: a piece is whole values and keys).
  if (walk.special) {
    for (let i = 0; i < pieces.length; ++i) pieces[i] = pieces[i].replace(walk.special.pattern, (_, token) => token);
  }
  return pieces;
}

// Lists longer than this are written this many elements per piece; the
// shallow plain objects and short arrays that hold them (the program, its
// plans and chains) key by key. The rest is one JSON.stringify per piece.
const PIECE_ITEMS = 256;
const PIECE_DEPTH = 6;
const SHORT_LIST = 8;

// What JSON.stringify omits as a member (and writes as null in a list).
const omitted = (v) => v === undefined || typeof v === 'function' || typeof v === 'symbol';
const hasToJSON = (v) => v !== null && typeof v === 'object' && typeof v.toJSON === 'function';

function writePieces(value, out, depth) {
  const array = Array.isArray(value);
  // A list with a toJSON() element stays one piece: toJSON() is told the
  // element's index, which a piece of the list would renumber.
  const container = value !== null && typeof value === 'object' && typeof value.toJSON !== 'function' &&
    (array ? !value.some(hasToJSON) : Object.getPrototypeOf(value) === Object.prototype);
  if (!container || (array && value.length > SHORT_LIST && value.length <= PIECE_ITEMS) ||
      (depth >= PIECE_DEPTH && !(array && value.length > PIECE_ITEMS))) {
    out.push(JSON.stringify(value));
    return;
  }
  if (array && value.length > PIECE_ITEMS) {
    for (let i = 0; i < value.length; i += PIECE_ITEMS) {
      const text = JSON.stringify(value.slice(i, i + PIECE_ITEMS));  // [a,b,...]: holes and omitted values are null
      out.push((i === 0 ? '[' : ',') + text.slice(1, -1));
    }
    out.push(']');
    return;
  }
  if (array) {
    out.push('[');
    for (let i = 0; i < value.length; ++i) {
      if (i > 0) out.push(',');
      const v = value[i];
      if (omitted(v)) out.push('null');
      else writePieces(v, out, depth + 1);
    }
    out.push(']');
    return;
  }
  let first = true;
  out.push('{');
  for (const key of Object.keys(value)) {
    const v = value[key];
    if (omitted(v)) continue;
    const member = `${first ? '' : ','}${JSON.stringify(key)}:`;
    if (hasToJSON(v)) {
      // Written as JSON.stringify writes a member, so toJSON() is told its
      // key and may omit it: {"key":value} -> value.
      const text = JSON.stringify({ [key]: v });
      if (text === '{}') continue;
      out.push(member + text.slice(member.length - (first ? 0 : 1) + 1, -1));
    } else {
      out.push(member);
      writePieces(v, out, depth + 1);
    }
    first = false;
  }
  out.push('}');
}

// Programs nest about ten levels deep; anything far deeper is a mistake (or
// a cycle) and is refused before the stack runs out.
const MAX_PROGRAM_DEPTH = 200;

// Scalars JSON.stringify writes as they are. The walk asks this of every
// value in the program, so the common cases go first: an int32 other than
// -0, then any finite Number but an integer beyond 2^53.
function isPlain(v) {
  const t = typeof v;
  if (t === 'number') {
    if ((v | 0) === v) return v !== 0 || 1 / v > 0;
    return Number.isFinite(v) && (!Number.isInteger(v) || Number.isSafeInteger(v));
  }
  return t === 'string' || t === 'boolean' || v === undefined;
}

function scalarForJson(value, walk) {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') {
    if (Number.isFinite(value) && !Object.is(value, -0)) return `${NUL}N${value}`;
    if (!walk.special) {
      const nonce = `${NUL}F${Math.random().toString(36).slice(2)}:`;
      walk.special = { nonce, pattern: new RegExp(`"\\\\u0000F${nonce.slice(2)}(NaN|-?Infinity|-0)"`, 'g') };
    }
    return `${walk.special.nonce}${Object.is(value, -0) ? '-0' : String(value)}`;
  }
  if (typeof value === 'symbol' || typeof value === 'function') return undefined;  // as JSON.stringify skips them
  return value;
}

function forJson(value, walk) {
  if (typeof value !== 'object') return isPlain(value) ? value : scalarForJson(value, walk);
  if (value === null) return value;
  const array = Array.isArray(value);
  // Byte fields: references the core reads through the host (never lists).
  // Arrays and plain objects (nearly every node) are neither bytes nor a
  // Blob, so only other objects pay for those tests.
  if ((!array && Object.getPrototypeOf(value) !== Object.prototype && (isBytes(value) || isBlob(value))) ||
      typeof value[SOURCE] === 'function') {
    return walk.scope.data(value, 'a program byte field');
  }
  if (typeof value.toJSON === 'function') return value;
  // A NaN other than the canonical one, by its bits (nan-bits.mjs).
  if (!array && value.nanBits !== undefined && isNanBits(value)) return nanBitsMarker(value);
  const depth = walk.depth;
  if (depth >= MAX_PROGRAM_DEPTH) {
    // Only now is it worth looking for a repeated object on the path.
    const path = walk.stack.slice(0, depth);
    const cycle = new Set(path).size < path.length;
    throw new EtpackError(cycle ? 'INVALID_ARGUMENT' : 'RESOURCE_LIMIT', cycle
      ? 'program refers to itself (a cycle): programs must be trees'
      : `program nests deeper than ${MAX_PROGRAM_DEPTH} levels`);
  }
  // The path from the root, kept by depth (entries below it are stale).
  walk.stack[depth] = value;
  walk.depth = depth + 1;
  let out = value;
  if (array) {
    for (let i = 0; i < value.length; ++i) {
      const v = value[i];
      if (v === null || (typeof v !== 'object' && isPlain(v))) continue;
      const p = forJson(v, walk);
      if (p !== v) {
        if (out === value) out = value.slice();
        out[i] = p;
      }
    }
  } else {
    // Own keys only (what JSON.stringify writes); a copy gets them as own
    // data properties, so a key `__proto__` stays a key.
    for (const key of Object.keys(value)) {
      const v = value[key];
      if (v === null || (typeof v !== 'object' && isPlain(v))) continue;
      const p = forJson(v, walk);
      if (p !== v) {
        if (out === value) out = { ...value };
        setOwn(out, key, p);
      }
    }
  }
  walk.depth = depth;
  return out;
}

