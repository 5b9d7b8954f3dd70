// safetensors in and out: an 8-byte little-endian header length N, N bytes of
// JSON header ({name: {dtype, shape, data_offsets: [begin, end]}, optional
// "__metadata__": {string: string}}), then the data; offsets are relative to
// the first data byte. Headers come from untrusted files: every length,
// offset and shape is checked against the file before anything is read, and
// every problem is an EtpackError with a SAFETENSORS_* code naming the tensor.
// Tensor bytes are never read here: callers get (entry, offset, size) ranges.
import { EtpackError } from './errors.mjs';
import { firstDuplicateKey } from './json-tokens.mjs';

// safetensors dtype <-> ExecuTorch ScalarType (src/model/scalar_type.cpp order).
export const DTYPE_TO_SCALAR = new Map([
  ['U8', 0], ['I8', 1], ['I16', 2], ['I32', 3], ['I64', 4], ['F16', 5], ['F32', 6], ['F64', 7],
  ['BOOL', 11], ['BF16', 15], ['F8_E5M2', 23], ['F8_E4M3', 24], ['U16', 27], ['U32', 28], ['U64', 29],
]);
export const SCALAR_TO_DTYPE = new Map([...DTYPE_TO_SCALAR].map(([d, s]) => [s, d]));
const ELEMENT_SIZE = new Map([
  ['U8', 1n], ['I8', 1n], ['BOOL', 1n], ['F8_E5M2', 1n], ['F8_E4M3', 1n], ['I16', 2n], ['U16', 2n], ['F16', 2n],
  ['BF16', 2n], ['I32', 4n], ['U32', 4n], ['F32', 4n], ['I64', 8n], ['U64', 8n], ['F64', 8n],
]);

// Headers above this are refused before any allocation (upstream's reader
// uses the same 100 MB bound).
export const MAX_HEADER_BYTES = 100_000_000;
const MAX_RANK = 64;

const at = (file, message) => `${file}: ${message}`;

function leU64(bytes) {
  let v = 0n;
  for (let i = 7; i >= 0; --i) v = (v << 8n) | BigInt(bytes[i]);
  return v;
}

// Reads and checks the header of a safetensors entry (see sources.mjs).
// Returns { headerSize, dataStart, metadata, tensors: Map(name -> {dtype,
// scalarType (null when ExecuTorch has none), shape, offset, size})} with
// absolute file offsets. `file` names the file in errors.
export async function readSafetensorsHeader(entry, file) {
  if (entry.size < 8) throw new EtpackError('SAFETENSORS_TRUNCATED', at(file, `${entry.size} bytes: too short for the 8-byte header length`));
  const n = leU64(await entry.read(0, 8));
  if (n > BigInt(entry.size - 8)) {
    throw new EtpackError('SAFETENSORS_HEADER_SIZE', at(file, `header length ${n} at offset 0 runs past the end of the file (${entry.size} bytes)`));
  }
  if (n > BigInt(MAX_HEADER_BYTES)) throw new EtpackError('SAFETENSORS_HEADER_SIZE', at(file, `header length ${n} exceeds ${MAX_HEADER_BYTES} bytes`));
  const headerSize = Number(n);
  let header;
  try {
    // Copy: the header text, at most MAX_HEADER_BYTES, read once to parse.
    const text = new TextDecoder('utf-8', { fatal: true }).decode(await entry.read(8, headerSize));
    header = JSON.parse(text);  // JSON.parse keeps '__proto__' as an own key
    // Only parsed text is scanned, so the scan sees valid JSON.
    const duplicate = firstDuplicateKey(text);
    if (duplicate) {
      // Readers disagree on duplicates (JSON.parse keeps the last; others
      // the first or refuse): which bytes a name means would depend on the tool.
      throw new EtpackError('SAFETENSORS_HEADER',
        at(file, `header key ${JSON.stringify(duplicate.key)} appears twice (again at offset ${8 + new TextEncoder().encode(text.slice(0, duplicate.offset)).byteLength})`));
    }
  } catch (e) {
    if (e instanceof EtpackError) throw e;
    throw new EtpackError('SAFETENSORS_HEADER', at(file, `header at offset 8 is not UTF-8 JSON (${e.message})`));
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) {
    throw new EtpackError('SAFETENSORS_HEADER', at(file, 'header at offset 8 is not a JSON object'));
  }
  const dataStart = 8 + headerSize;
  const dataSize = entry.size - dataStart;
  const tensors = new Map();
  let metadata = new Map();
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') {
      metadata = checkMetadata(info, file);
      continue;
    }
    tensors.set(name, checkTensor(name, info, dataStart, dataSize, file));
  }
  checkOverlaps(tensors, file);
  return { headerSize, dataStart, metadata, tensors };
}

function checkMetadata(info, file) {
  if (info === null || typeof info !== 'object' || Array.isArray(info)) {
    throw new EtpackError('SAFETENSORS_HEADER', at(file, '__metadata__ is not an object'));
  }
  const out = new Map();
  for (const [k, v] of Object.entries(info)) {
    if (typeof v !== 'string') throw new EtpackError('SAFETENSORS_HEADER', at(file, `__metadata__['${k}'] is not a string`));
    out.set(k, v);
  }
  return out;
}

function checkTensor(name, info, dataStart, dataSize, file) {
  const where = `tensor '${name}'`;
  if (info === null || typeof info !== 'object' || Array.isArray(info)) throw new EtpackError('SAFETENSORS_HEADER', at(file, `${where} is not an object`));
  const { dtype, shape, data_offsets: offsets } = info;
  if (typeof dtype !== 'string') throw new EtpackError('SAFETENSORS_HEADER', at(file, `${where} has no dtype`));
  if (!Array.isArray(shape) || shape.length > MAX_RANK || !shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
    throw new EtpackError('SAFETENSORS_SHAPE', at(file, `${where} has an invalid shape (an array of at most ${MAX_RANK} non-negative integers)`));
  }
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((o) => Number.isSafeInteger(o) && o >= 0) || offsets[0] > offsets[1]) {
    throw new EtpackError('SAFETENSORS_OFFSETS', at(file, `${where} has invalid data_offsets (two integers, begin <= end)`));
  }
  const [begin, end] = offsets;
  if (end > dataSize) {
    throw new EtpackError('SAFETENSORS_OFFSETS',
      at(file, `${where} data_offsets [${begin}, ${end}] run past the end of the data (${dataSize} bytes from offset ${dataStart})`));
  }
  const element = ELEMENT_SIZE.get(dtype);
  if (element !== undefined) {
    // BigInt: a hostile shape's product may exceed 2^53.
    const expected = shape.reduce((p, d) => p * BigInt(d), element);
    if (expected !== BigInt(end - begin)) {
      throw new EtpackError('SAFETENSORS_SHAPE', at(file, `${where} is ${dtype}[${shape.join(', ')}] = ${expected} bytes but its data_offsets hold ${end - begin}`));
    }
  }
  return { dtype, scalarType: DTYPE_TO_SCALAR.get(dtype) ?? null, shape, offset: dataStart + begin, size: end - begin };
}

// Sorting makes this O(n log n) whatever the header claims.
function checkOverlaps(tensors, file) {
  const list = [...tensors].filter(([, t]) => t.size > 0).sort((a, b) => a[1].offset - b[1].offset);
  for (let i = 1; i < list.length; ++i) {
    const [prevName, prev] = list[i - 1];
    const [name, t] = list[i];
    if (t.offset < prev.offset + prev.size) {
      throw new EtpackError('SAFETENSORS_OVERLAP', at(file, `tensors '${prevName}' and '${name}' overlap at offset ${t.offset}`));
    }
  }
}

// A safetensors file as Artifact pieces: the header (built here, small) and
// then each tensor's pieces as given (references to where the bytes live:
// nothing of the tensors is copied). tensors: [{name, dtype, shape, size,
// pieces}] in file order. The header is padded with spaces to 8 bytes, as
// upstream's writer does, so the data starts aligned.
export function safetensorsPieces(tensors, metadata) {
  const header = {};
  if (metadata && Object.keys(metadata).length) header.__metadata__ = metadata;
  let at = 0;
  for (const t of tensors) {
    // defineProperty: a tensor named '__proto__' stays an own key.
    Object.defineProperty(header, t.name, {
      value: { dtype: t.dtype, shape: t.shape, data_offsets: [at, at + t.size] }, enumerable: true, writable: true, configurable: true,
    });
    at += t.size;
  }
  let text = JSON.stringify(header);
  const encoded = new TextEncoder().encode(text);
  const pad = (8 - (encoded.byteLength % 8)) % 8;
  const head = new Uint8Array(8 + encoded.byteLength + pad);
  let n = BigInt(encoded.byteLength + pad);
  for (let i = 0; i < 8; ++i, n >>= 8n) head[i] = Number(n & 0xffn);
  head.set(encoded, 8);
  head.fill(0x20, 8 + encoded.byteLength);
  text = null;
  const pieces = [{ bytes: head }];
  for (const t of tensors) pieces.push(...t.pieces);
  return { pieces, size: head.byteLength + at };
}
