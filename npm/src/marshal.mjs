// All marshalling between JavaScript values and the core's JSON requests
// and replies lives here.
import { EtpackError, invalidArgument } from './errors.mjs';
import { isBytes } from './bytes.mjs';
import { Artifact } from './artifact.mjs';
import { isBlob, SOURCE } from './sources.mjs';

const NUL = '\u0000';

// Program (object or JSON text) -> JSON text for the core. BigInts become
// digit strings; integer Numbers beyond 2^53 are marked so the core can
// reject them where an integer is expected (they may have been rounded);
// byte arrays (and files, Blobs, Artifacts) go by reference, never as
// integer lists. The caller's object is never modified: the walk copies only
// the arrays and objects on the path to a changed value, then one plain
// JSON.stringify does the rest (much faster than a replacer function).
export function programText(program, scope) {
  if (typeof program === 'string') return program;
  if (program === null || typeof program !== 'object' || Array.isArray(program)) {
    throw invalidArgument('program must be an object or JSON text');
  }
  return JSON.stringify(forJson(program, scope));
}

// Scalars JSON.stringify writes as they are.
function isPlain(v) {
  const t = typeof v;
  return t === 'string' || t === 'boolean' || v === undefined || (t === 'number' && (Number.isSafeInteger(v) || !Number.isInteger(v)));
}

function forJson(value, scope) {
  if (typeof value !== 'object') {
    if (isPlain(value)) return value;
    return typeof value === 'bigint' ? value.toString() : typeof value === 'number' ? `${NUL}N${value}` : value;
  }
  if (value === null) return value;
  // Byte fields: references the core reads through the host (never lists).
  if (isBytes(value) || isBlob(value) || typeof value[SOURCE] === 'function') return scope.data(value, 'a program byte field');
  if (typeof value.toJSON === 'function') return value;
  let out = value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; ++i) {
      const v = value[i];
      if (v === null || (typeof v !== 'object' && isPlain(v))) continue;
      const p = forJson(v, scope);
      if (p !== v) {
        if (out === value) out = value.slice();
        out[i] = p;
      }
    }
    return out;
  }
  for (const key in value) {
    const v = value[key];
    if (v === null || (typeof v !== 'object' && isPlain(v))) continue;
    const p = forJson(v, scope);
    if (p !== v) {
      if (out === value) out = { ...value };
      out[key] = p;
    }
  }
  return out;
}

// Reply JSON -> JS values: "\0<digits>" is a BigInt, "\0\0..." a string that
// began with NUL, {"\0blob": i} the i-th returned byte array.
export function parseReply(text, blobs) {
  return JSON.parse(text, (key, value) => {
    if (typeof value === 'string' && value.charCodeAt(0) === 0) {
      return value.charCodeAt(1) === 0 ? value.slice(1) : BigInt(value.slice(1));
    }
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const index = value[`${NUL}blob`];
      if (index !== undefined) return blobs[index];
    }
    return value;
  });
}

// Reply JSON written without BigInt markers (inspect, validate): integers
// beyond 2^53 (sizes and offsets read from a file) become BigInt instead of
// being rounded, and strings from the file that begin with NUL stay strings.
export function parseLossless(text) {
  const marked = text.replace(/"(?:[^"\\]|\\.)*"(\s*:)?|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, (token, key) => {
    if (token[0] === '"') return !key && token.startsWith('"\\u0000') ? `"\\u0000${token.slice(1)}` : token;
    return /^-?\d+$/.test(token) && !Number.isSafeInteger(Number(token)) ? `"\\u0000${token}"` : token;
  });
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
  const sizes = layout.sizes ?? [];
  const dimOrder = layout.dimOrder ?? layout.dim_order ?? [];
  if (!Number.isInteger(scalarType)) throw invalidArgument(`${what}.scalarType must be an integer`);
  return { scalar_type: scalarType, sizes: Array.from(sizes, Number), dim_order: Array.from(dimOrder, Number) };
}

export function layoutFromCore(layout) {
  if (!layout) return null;
  return { scalarType: layout.scalar_type, sizes: layout.sizes, dimOrder: layout.dim_order };
}

export function entriesToCore(entries, what) {
  if (entries === null || typeof entries !== 'object') throw invalidArgument(`${what} must be an object`);
  const out = {};
  for (const [key, e] of Object.entries(entries)) {
    const bufferIndex = e.bufferIndex ?? e.buffer_index;
    if (!Number.isInteger(bufferIndex) || bufferIndex < 0) throw invalidArgument(`${what}['${key}'].bufferIndex must be a non-negative integer`);
    const alignment = e.alignment ?? 1;
    if (!Number.isInteger(alignment)) throw invalidArgument(`${what}['${key}'].alignment must be an integer`);
    out[key] = { buffer_index: bufferIndex, alignment, tensor_layout: layoutToCore(e.tensorLayout ?? e.tensor_layout, `${what}['${key}'].tensorLayout`) };
  }
  return out;
}

export function entriesFromCore(entries) {
  const out = {};
  for (const [key, e] of Object.entries(entries)) {
    out[key] = { bufferIndex: e.buffer_index, alignment: e.alignment, tensorLayout: layoutFromCore(e.tensor_layout) };
  }
  return out;
}

// A store output ({buffers, pteData, externalData}) -> core JSON, buffers by reference.
export function storeOutputToCore(output, scope, what = 'namedDataStore') {
  if (!output || !Array.isArray(output.buffers)) throw invalidArgument(`${what} must have a buffers array`);
  const external = {};
  for (const [tag, entries] of Object.entries(output.externalData ?? output.external_data ?? {})) {
    external[tag] = entriesToCore(entries, `${what}.externalData['${tag}']`);
  }
  return {
    buffers: output.buffers.map((b, i) => scope.data(b, `${what}.buffers[${i}]`)),
    pte_data: entriesToCore(output.pteData ?? output.pte_data ?? {}, `${what}.pteData`),
    external_data: external,
  };
}

export function storeOutputFromCore(json) {
  const external = {};
  for (const [tag, entries] of Object.entries(json.external_data)) external[tag] = entriesFromCore(entries);
  return { buffers: json.buffers, pteData: entriesFromCore(json.pte_data), externalData: external };
}

export function pteConfigToCore(config = {}, defaultExtract = true) {
  if (config === null || typeof config !== 'object') throw invalidArgument('config must be an object');
  const check = (name, value, required) => {
    if (value === undefined || value === null) {
      if (required) throw invalidArgument(`config.${name} is required`);
      return null;
    }
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new EtpackError('INVALID_ALIGNMENT', `config.${name} must be a positive integer, got ${String(value)}`);
    }
    return value;
  };
  return {
    extract_delegate_segments: config.extractDelegateSegments ?? defaultExtract,
    segment_alignment: check('segmentAlignment', config.segmentAlignment ?? 128, true),
    constant_tensor_alignment: check('constantTensorAlignment', config.constantTensorAlignment, false),
    delegate_alignment: check('delegateAlignment', config.delegateAlignment, false),
  };
}
