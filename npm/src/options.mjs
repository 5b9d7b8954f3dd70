// Every options object of the public API is checked against a spec here:
// unknown keys are INVALID_ARGUMENT (with "did you mean" when a known key is
// close, e.g. `externalise`), and values of the wrong type or range are
// refused before anything reaches the core. Keys are read as own properties
// only (an own `__proto__` key from JSON.parse is an unknown key like any
// other; inherited keys are not options).
import { EtpackError, invalidArgument } from './errors.mjs';
import { INSPECTED_KINDS } from './generated/file-kinds.mjs';

// Alignments: positive integers. Above this bound every segment would be
// padded to a multiple of it (dataSegmentAlignment 2^31 planned a 12 GiB .ptd
// from 1.4 KB of input); no device needs more than a few MiB.
export const MAX_ALIGNMENT = 2 ** 24;
// The largest output a call may plan (checked on the planned sizes).
export const MAX_OUTPUT_BYTES = 2 ** 40;

const isPowerOfTwo = (n) => n > 0 && n <= MAX_ALIGNMENT && (n & (n - 1)) === 0;

// A Number or BigInt that is an integer in [min, max] -> a Number.
export function integerIn(value, what, min, max, code = 'INVALID_ARGUMENT') {
  let n = value;
  if (typeof value === 'bigint') {
    if (value < BigInt(min) || value > BigInt(max)) throw new EtpackError(code, `${what} must be an integer from ${min} to ${max}, got ${value}`);
    n = Number(value);
  }
  if (typeof n !== 'number') throw invalidArgument(`${what} must be an integer, got ${value === null ? 'null' : typeof value}`);
  if (!Number.isInteger(n)) throw new EtpackError(code, `${what} must be an integer, got ${String(value)}`);
  if (n < min || n > max) throw new EtpackError(code, `${what} must be an integer from ${min} to ${max}, got ${n}`);
  return n;
}

// Checkers: (value, what) -> the value to use. `undefined` never reaches them.
export const check = {
  any: (v) => v,
  boolean(v, what) {
    if (typeof v !== 'boolean') throw invalidArgument(`${what} must be true or false, got ${typeof v}`);
    return v;
  },
  string(v, what) {
    if (typeof v !== 'string') throw invalidArgument(`${what} must be a string, got ${typeof v}`);
    return v;
  },
  stringOrNull: (v, what) => (v === null ? null : check.string(v, what)),
  functionOrNull(v, what) {
    if (v !== null && typeof v !== 'function') throw invalidArgument(`${what} must be a function or null`);
    return v;
  },
  oneOf: (values) => (v, what) => {
    if (!values.includes(v)) throw invalidArgument(`${what} must be one of ${values.join(', ')}, got ${String(v)}`);
    return v;
  },
  // Any positive integer (segment alignments only enter through lcm and
  // padding; upstream accepts e.g. 96).
  alignment: (v, what) => integerIn(v, what, 1, MAX_ALIGNMENT, 'INVALID_ALIGNMENT'),
  // Alignments the runtime reads as flatbuffer force_align (constant tensor,
  // delegate): a power of two, else the file does not load (FORMAT.md).
  powerOfTwo(v, what) {
    const n = integerIn(v, what, 1, MAX_ALIGNMENT, 'INVALID_ALIGNMENT');
    if (!isPowerOfTwo(n)) throw new EtpackError('INVALID_ALIGNMENT', `${what} must be a power of two (the runtime rejects other values), got ${n}`);
    return n;
  },
  nullable: (inner) => (v, what) => (v === null ? null : inner(v, what)),
  byteCount: (v, what) => integerIn(v, what, 0, Number.MAX_SAFE_INTEGER),
  signal(v, what) {
    if (v !== null && (typeof v !== 'object' || typeof v.aborted !== 'boolean')) throw invalidArgument(`${what} must be an AbortSignal or null`);
    return v;
  },
  object(v, what) {
    if (v === null || typeof v !== 'object') throw invalidArgument(`${what} must be an object`);
    return v;
  },
  stringList(v, what) {
    if (!Array.isArray(v)) throw invalidArgument(`${what} must be an array of strings`);
    v.forEach((s, i) => check.string(s, `${what}[${i}]`));
    return v;
  },
};

export const PTE_CONFIG = {
  extractDelegateSegments: check.boolean,
  segmentAlignment: check.alignment,
  constantTensorAlignment: check.nullable(check.powerOfTwo),
  delegateAlignment: check.nullable(check.powerOfTwo),
};
export const OUTPUT = { output: check.oneOf(['bytes', 'blob', 'artifact']), onProgress: check.functionOrNull, signal: check.signal };

export const SPECS = {
  pteConfig: PTE_CONFIG,
  flatTensorConfig: { segmentAlignment: check.alignment },
  output: OUTPUT,
  addNamedData: { alignment: check.alignment, externalTag: check.stringOrNull, tensorLayout: check.any },
  inspect: { kind: check.oneOf(INSPECTED_KINDS), dataFiles: check.any },
  validate: { runtime: check.any, backends: check.any, deprecatedConstantBuffer: check.any, methodAllocator: check.any },
  openBlob: { digest: check.boolean, signal: check.signal },
  // Keys only: url-source.mjs checks the values.
  openUrl: Object.fromEntries(['headers', 'fetch', 'signal', 'timeoutMs', 'blockSize', 'headBytes', 'cacheBlocks', 'padding', 'paddingBytes',
    'paddingRequests', 'maxBytes', 'maxHeadBytes', 'minBytesPerSecond', 'digest'].map((k) => [k, check.any])),
  init: { locateFile: check.any, wasmBinary: check.any },
  repack: {
    ...PTE_CONFIG, ...OUTPUT,
    externalize: check.any, merge: check.any, mergeTag: check.string, dataSegmentAlignment: check.alignment,
    dataSerializer: check.any, data: check.any, allowMissingData: check.boolean,
  },
  // Artifact methods (writeTo and toNodeStream are checked by the Node layer).
  toBytes: { onProgress: check.functionOrNull, signal: check.signal },
  toBlob: { type: check.string },
  chunks: { chunkSize: (v, what) => integerIn(v, what, 1, 2 ** 30), signal: check.signal },
  stream: { chunkSize: (v, what) => integerIn(v, what, 1, 2 ** 30), onProgress: check.functionOrNull, signal: check.signal },
  externalize: {
    tag: check.string, patterns: check.stringList, names: check.stringList, minBytes: check.byteCount, alignment: check.alignment,
  },
};

// Checks `options` (undefined/null = none) against `spec`; returns a plain
// object of the checked values (only keys the caller gave).
export function checkOptions(options, spec, what) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) throw invalidArgument(`${what} must be an object, got ${describeType(options)}`);
  const out = {};
  for (const key of Object.keys(options)) {
    if (!Object.hasOwn(spec, key)) {
      const near = closest(key, Object.keys(spec));
      throw invalidArgument(`${what} has no option ${JSON.stringify(key)}${near ? `; did you mean ${JSON.stringify(near)}?` : ''}` +
        ` (known: ${Object.keys(spec).join(', ')})`);
    }
    const value = options[key];
    if (value !== undefined) out[key] = spec[key](value, `${what}.${key}`);
  }
  return out;
}

function describeType(v) {
  return Array.isArray(v) ? 'an array' : typeof v;
}

// The known key within a small edit distance (case-insensitive), if any.
function closest(key, known) {
  let best = null;
  let bestDistance = Math.max(2, Math.floor(key.length / 4)) + 1;
  for (const k of known) {
    const d = editDistance(key.toLowerCase(), k.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

// Edit distance (insertions, deletions, substitutions) for "did you mean";
// Infinity for words too far apart in length to be typos of each other
// (or too long to be option names), so a hostile key costs nothing.
export function editDistance(a, b) {
  if (Math.abs(a.length - b.length) > 3 || a.length > 64 || b.length > 64) return Infinity;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; ++i) {
    const row = [i];
    for (let j = 1; j <= b.length; ++j) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length];
}
