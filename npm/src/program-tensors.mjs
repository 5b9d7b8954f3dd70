// The tensors of a deserialized program (deserializePteBinary's upstream
// shape: constants restored into constant_buffer, named data into the store)
// and of .ptd files, as lists of named byte ranges. Shared by diff and the
// weights commands. Nothing here reads tensor bytes: data stays Artifacts
// (references to the input files) until a caller streams or hashes them.
import { Artifact } from './artifact.mjs';

// Element sizes by ScalarType value (as src/model/scalar_type.cpp).
const ELEMENT_SIZE = [1, 1, 2, 4, 8, 2, 4, 8, 4, 8, 16, 1, 1, 1, 4, 2, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 2, 4, 8];

// Bytes of a tensor (as a Number; null when the type is unknown or a size is
// not a safe non-negative integer).
export function tensorBytes(scalarType, sizes) {
  const element = ELEMENT_SIZE[Number(scalarType)];
  if (element === undefined || !Array.isArray(sizes)) return null;
  let total = BigInt(element);
  for (const s of sizes) {
    const n = BigInt(s);
    if (n < 0n) return null;
    total *= n;
  }
  return total <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(total) : null;
}

// The first `size` bytes of an artifact as an artifact of references.
export function sliceArtifact(artifact, size) {
  if (size === artifact.size) return artifact;
  const pieces = [];
  let left = size;
  for (const p of artifact.pieces) {
    if (left === 0) break;
    const length = p.bytes ? p.bytes.byteLength : (p.zeros ?? p.length);
    const take = Math.min(length, left);
    if (p.bytes) pieces.push({ bytes: p.bytes.subarray(0, take) });
    else if (p.zeros !== undefined) pieces.push({ zeros: take });
    else pieces.push({ entry: p.entry, offset: p.offset, length: take });
    left -= take;
  }
  return new Artifact(pieces, size);
}

// Deserialized bytes are Artifacts (file inputs) or Uint8Array views (byte
// inputs): both as Artifacts (a view is referenced, not copied).
export function asArtifact(value) {
  if (value instanceof Uint8Array) return new Artifact([{ bytes: value }], value.byteLength);
  return value instanceof Artifact ? value : null;
}

const num = (v) => (typeof v === 'bigint' ? Number(v) : v);
const ints = (list) => (Array.isArray(list) ? list.map(num) : list);

// Every tensor of every plan that carries data or a name: constants (with
// their constant_buffer bytes, padding cut off), external tensors (by fqn)
// and mutable buffers. Each: { kind, name (fqn or null), path, scalarType,
// sizes, dimOrder, nbytes, data (Artifact or null), bufferIndex }.
export function programTensors(program) {
  const out = [];
  const constants = program.constant_buffer ?? [];
  (program.execution_plan ?? []).forEach((plan, p) => {
    (plan.values ?? []).forEach((value, v) => {
      if (value?.val_type !== 'Tensor') return;
      const t = value.val;
      const info = t.extra_tensor_info ?? null;
      const index = num(t.data_buffer_idx ?? 0);
      const planned = t.allocation_info !== null && t.allocation_info !== undefined;
      const external = info !== null && num(info.location) === 1;
      let kind;
      if (external) kind = 'external';
      else if (index > 0) kind = planned ? 'mutable' : 'constant';
      else return;
      const sizes = ints(t.sizes ?? []);
      const nbytes = tensorBytes(t.scalar_type, sizes);
      let data = null;
      const storage = kind === 'constant' ? asArtifact(constants[index]?.storage) : null;
      if (storage) {
        data = nbytes !== null && nbytes <= storage.size ? sliceArtifact(storage, nbytes) : storage;
      }
      out.push({
        kind,
        name: info?.fully_qualified_name ?? null,
        path: `execution_plan[${p}].values[${v}]`,
        scalarType: num(t.scalar_type),
        sizes,
        dimOrder: ints(t.dim_order ?? []),
        nbytes,
        data,
        bufferIndex: index,
      });
    });
  });
  return out;
}

// External tensors once each by name, in order of first use.
export function externalTensors(program) {
  const seen = new Map();
  for (const t of programTensors(program)) if (t.kind === 'external' && t.name !== null && !seen.has(t.name)) seen.set(t.name, t);
  return [...seen.values()];
}

// Named data of deserialized .ptd files (FlatTensorSerializer.deserialize
// results): Map key -> { data, tensorLayout, file }. A key in two files: the
// first wins, as the runtime's merged data map would refuse; reported by
// callers that care through `duplicates`.
export function namedDataOf(files) {
  const map = new Map();
  const duplicates = [];
  for (const { name, data } of files) {
    for (const [key, entry] of Object.entries(data.namedData)) {
      if (map.has(key)) {
        duplicates.push(key);
        continue;
      }
      map.set(key, { data: asArtifact(data.buffers[entry.bufferIndex]), tensorLayout: entry.tensorLayout ?? null, file: name });
    }
  }
  return { map, duplicates };
}

// Streams an artifact through a hasher (chunks of at most 8 MiB: nothing is
// loaded whole).
export async function hashArtifact(artifact, createHasher) {
  const hasher = createHasher();
  for await (const chunk of artifact.chunks()) hasher.update(chunk);
  return hasher.digest();
}
