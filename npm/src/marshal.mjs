// All marshalling between JavaScript values and the core's JSON requests
// and replies lives here.
import { EtpackError, invalidArgument } from './errors.mjs';
import { PTE_CONFIG, check, checkOptions, integerIn } from './options.mjs';
import { rewriteTokens } from './json-tokens.mjs';
import { isBytes } from './bytes.mjs';
import { Artifact } from './artifact.mjs';
import { isBlob, SOURCE } from './sources.mjs';

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

// Sets `key` as an own, enumerable data property whatever the key is:
// `obj[key] = v` with key "__proto__" would replace the prototype instead.
// Maps keyed by names from a file or a caller (namedData, pteData,
// externalData, ptd) are ordinary objects built with this, so every key is
// an own property and no prototype ever changes.
export function setOwn(obj, key, value) {
  // Object.prototype's only accessor is __proto__: any other key assigned
  // on an ordinary object becomes an own data property (and is faster).
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
  return obj;
}

// The special numbers of the core's JSON (bare NaN, Infinity, -Infinity;
// -0.0 is plain JSON) -> placeholder strings the reviver turns back into
// Numbers. Only texts that mention them pay for the scan.
const SPECIAL_VALUES = { NaN, Infinity, '-Infinity': -Infinity };
const markSpecial = (token) => (Object.hasOwn(SPECIAL_VALUES, token) ? `"\\u0000${token}"` : undefined);

function markSpecials(text) {
  if (!text.includes('NaN') && !text.includes('Infinity')) return text;
  return rewriteTokens(text, null, markSpecial);
}

// Reply JSON -> JS values: "\0<digits>" is a BigInt, "\0NaN" etc. a special
// number, "\0\0..." a string that began with NUL, {"\0blob": i} the i-th
// returned byte array. JSON.parse makes every key an own property
// (`__proto__` included).
export function parseReply(text, blobs) {
  try {
    const marked = markSpecials(text);
    const parsed = JSON.parse(marked);
    // Markers all begin with an escaped NUL: without one there is nothing to do.
    return marked.includes('\\u0000') ? resolveMarkers(parsed, blobs) : parsed;
  } catch (e) {
    throw new EtpackError('INTERNAL', `the core's reply could not be read: ${e?.message ?? e}`, { cause: e });
  }
}

// The markers of a parsed reply replaced in place, by an iterative walk
// (faster than a JSON.parse reviver, and no recursion whatever the depth).
export function resolveMarkers(root, blobs) {
  const resolve = (v) => {
    if (typeof v === 'string') {
      if (v.charCodeAt(0) !== 0) return v;
      if (v.charCodeAt(1) === 0) return v.slice(1);
      const rest = v.slice(1);
      return Object.hasOwn(SPECIAL_VALUES, rest) ? SPECIAL_VALUES[rest] : BigInt(rest);
    }
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, BLOB_KEY)) return blobs[v[BLOB_KEY]];
    return v;
  };
  const top = resolve(root);
  const stack = top === root ? [top] : [];
  while (stack.length) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object' || ArrayBuffer.isView(node)) continue;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; ++i) {
        const v = node[i];
        if (v === null || (typeof v !== 'object' && typeof v !== 'string')) continue;
        const r = resolve(v);
        if (r !== v) node[i] = r;
        else if (typeof v === 'object') stack.push(v);
      }
    } else {
      for (const key of Object.keys(node)) {
        const v = node[key];
        if (v === null || (typeof v !== 'object' && typeof v !== 'string')) continue;
        const r = resolve(v);
        if (r !== v) setOwn(node, key, r);
        else if (typeof v === 'object') stack.push(v);
      }
    }
  }
  return top;
}

const BLOB_KEY = `${NUL}blob`;

// Reply JSON written without BigInt markers (inspect, validate): integers
// beyond 2^53 (sizes and offsets read from a file) become BigInt instead of
// being rounded, strings from the file that begin with NUL stay strings, and
// bare NaN/Infinity tokens become Numbers.
export function parseLossless(text) {
  // Most reports hold none of these: plain JSON.parse then (several times
  // faster than the token pass below on a 200k-entry report).
  if (!/\d{16}/.test(text) && !text.includes('NaN') && !text.includes('Infinity') && !text.includes('\\u0000')) return JSON.parse(text);
  const marked = rewriteTokens(text,
    (token, isKey) => (isKey ? undefined : `"\\u0000${token.slice(1)}`),
    (token) => markSpecial(token) ??
      (/^-?\d+$/.test(token) && !Number.isSafeInteger(Number(token)) ? `"\\u0000${token}"` : undefined));
  return parseReply(marked, []);
}

// Runs a core call and turns a failed Output into a thrown EtpackError. The
// Output is always deleted.
export function call(fn) {
  const out = fn();
  try {
    if (!out.ok()) throw withDetails(new EtpackError(out.code(), out.message()), out.json());
    return out;
  } catch (e) {
    out.delete();
    throw e;
  }
}

// A refusal's details, which a failed Output carries as JSON (repack:
// `keys` for MISSING_EXTERNAL_DATA, `findings` for INVALID_INPUT /
// INVALID_OUTPUT), become properties of the error.
function withDetails(error, json) {
  if (!json) return error;
  let details;
  try {
    details = parseLossless(json);
  } catch {
    return error;
  }
  if (Array.isArray(details?.keys)) error.keys = details.keys;
  if (Array.isArray(details?.findings)) error.findings = details.findings;
  return error;
}

// Returned byte arrays: views of the caller's own sources where possible;
// ranges of a file or Blob come back as lazy Artifacts (nothing read).
export function blobs(module, sources, out) {
  const flat = out.blobList();
  const list = [];
  for (let i = 0; i < flat.length; i += 4) {
    const len = flat[i + 2];
    if (flat[i] === 2) {
      const entry = sources.get(flat[i + 1]);
      const view = entry.view(flat[i + 3], len);
      list.push(view ?? new Artifact([{ entry, offset: flat[i + 3], length: len }], len));
    } else {
      const ptr = flat[i + 1] >>> 0;
      list.push(module.HEAPU8.slice(ptr, ptr + len));  // heap bytes must outlive the call: copy
    }
  }
  return list;
}

// --- named data shapes ------------------------------------------------------

export function layoutToCore(layout, what) {
  if (layout === null || layout === undefined) return null;
  if (typeof layout !== 'object') throw invalidArgument(`${what} must be an object or null`);
  const scalarType = layout.scalarType ?? layout.scalar_type;
  if (!Number.isInteger(scalarType)) throw invalidArgument(`${what}.scalarType must be an integer`);
  return {
    scalar_type: scalarType,
    sizes: integerList(layout.sizes ?? [], `${what}.sizes`),
    dim_order: integerList(layout.dimOrder ?? layout.dim_order ?? [], `${what}.dimOrder`),
  };
}

// An array-like of integers (Numbers or BigInts) -> Numbers, checked.
function integerList(list, what) {
  if (list === null || typeof list !== 'object' || typeof list.length !== 'number') throw invalidArgument(`${what} must be an array of integers`);
  return Array.from(list, (v, i) => integerIn(v, `${what}[${i}]`, -(2 ** 53) + 1, 2 ** 53 - 1));
}

export function layoutFromCore(layout) {
  if (!layout) return null;
  return { scalarType: layout.scalar_type, sizes: layout.sizes, dimOrder: layout.dim_order };
}

export function entriesToCore(entries, what) {
  if (entries === null || typeof entries !== 'object' || Array.isArray(entries)) throw invalidArgument(`${what} must be an object`);
  const out = {};
  for (const key of Object.keys(entries)) {
    const e = entries[key];
    const where = `${what}[${JSON.stringify(key)}]`;
    if (e === null || typeof e !== 'object') throw invalidArgument(`${where} must be an object { bufferIndex, alignment?, tensorLayout? }`);
    const bufferIndex = integerIn(e.bufferIndex ?? e.buffer_index, `${where}.bufferIndex`, 0, 2 ** 32 - 1);
    const alignment = e.alignment === undefined ? 1 : check.alignment(e.alignment, `${where}.alignment`);
    setOwn(out, key, { buffer_index: bufferIndex, alignment, tensor_layout: layoutToCore(e.tensorLayout ?? e.tensor_layout, `${where}.tensorLayout`) });
  }
  return out;
}

export function entriesFromCore(entries) {
  const out = {};
  for (const key of Object.keys(entries)) {
    const e = entries[key];
    setOwn(out, key, { bufferIndex: e.buffer_index, alignment: e.alignment, tensorLayout: layoutFromCore(e.tensor_layout) });
  }
  return out;
}

// A store output ({buffers, pteData, externalData}) -> core JSON, buffers by reference.
export function storeOutputToCore(output, scope, what = 'namedDataStore') {
  if (!output || typeof output !== 'object' || !Array.isArray(output.buffers)) throw invalidArgument(`${what} must have a buffers array`);
  const externalData = output.externalData ?? output.external_data ?? {};
  if (externalData === null || typeof externalData !== 'object') throw invalidArgument(`${what}.externalData must be an object`);
  const external = {};
  for (const tag of Object.keys(externalData)) {
    setOwn(external, tag, entriesToCore(externalData[tag], `${what}.externalData[${JSON.stringify(tag)}]`));
  }
  return {
    buffers: output.buffers.map((b, i) => scope.data(b, `${what}.buffers[${i}]`)),
    pte_data: entriesToCore(output.pteData ?? output.pte_data ?? {}, `${what}.pteData`),
    external_data: external,
  };
}

export function storeOutputFromCore(json) {
  const external = {};
  for (const tag of Object.keys(json.external_data)) setOwn(external, tag, entriesFromCore(json.external_data[tag]));
  return { buffers: json.buffers, pteData: entriesFromCore(json.pte_data), externalData: external };
}

export function pteConfigToCore(config = {}, defaultExtract = true, what = 'config', spec = PTE_CONFIG) {
  const c = checkOptions(config, spec, what);
  return {
    extract_delegate_segments: c.extractDelegateSegments ?? defaultExtract,
    segment_alignment: c.segmentAlignment ?? 128,
    constant_tensor_alignment: c.constantTensorAlignment ?? null,
    delegate_alignment: c.delegateAlignment ?? null,
  };
}
