// The tensors of a deserialized program (deserializePteBinary's upstream
// shape: constants restored into constant_buffer, named data into the store)
// and of .ptd files, as lists of named byte ranges. Shared by diff and the
// weights commands. Nothing here reads tensor bytes: data stays Artifacts
// (references to the input files, artifact-slices.mjs) until a caller
// streams or hashes them (range-hash.mjs). The classification below is the
// format logic still in JS (issue 36: the core's read/program_tensors.h
// decides the same per tensor).
import { asArtifact, sliceArtifact } from './artifact-slices.mjs';
import { weightsCall } from './safetensors.mjs';
import { layoutFromCore } from './marshal.mjs';
import { SCALAR_TYPES } from './generated/scalar-types.mjs';
import { TensorDataLocation } from './generated/schema-enums.mjs';

// Element sizes by ScalarType code: the table generated from the core's
// (src/model/scalar_types.def), the one dtype table of the package.
const ELEMENT_SIZE = [];
for (const t of Object.values(SCALAR_TYPES)) ELEMENT_SIZE[t.code] = t.elementSize;

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
      const external = info !== null && num(info.location) === TensorDataLocation.EXTERNAL;
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

// path -> fully_qualified_name of every named tensor of the .pte `source`,
// read by the core from the file's bytes: a lone surrogate comes back as
// one (JSON's \udxxx escape), where the deserialized program (decoded text)
// holds U+FFFD. Names shown or written use these; lookups in .ptd maps
// decoded the same way as the program keep the program's own names.
export function coreTensorNames(et, source) {
  const { reply } = weightsCall(et, 'tensor_names', (heap, scope, fileRequest) => ({ pte: fileRequest(source, 'pte', scope, heap, 'pte') }));
  return new Map(reply.names);
}

// The tensors as the core's weights calls read them (src/bindings/
// weights_api.cpp): a null name is an unnamed constant.
export function tensorsToCore(tensors) {
  return tensors.map((t) => ({
    name: t.name, path: t.path, scalar_type: t.scalarType, sizes: t.sizes, dim_order: t.dimOrder,
    // Mutable buffers index mutable data, not constant_buffer: no weights there.
    external: t.kind === 'external', buffer: t.kind === 'constant' ? t.bufferIndex : 0,
  }));
}

// A .ptd's named-data keys as the file holds them, from the core (like
// coreTensorNames: a lone surrogate stays one and prints escaped, \ud800;
// FlatTensorSerializer.deserialize has decoded text, U+FFFD, where two such
// keys are one): [[key, segmentIndex, tensorLayout | null]], in file order.
export function corePtdKeys(et, source) {
  const { reply } = weightsCall(et, 'ptd_keys', (heap, scope, fileRequest) => ({ ptd: fileRequest(source, 'ptd', scope, heap, 'ptd') }));
  return reply.keys.map(([key, segment, layout]) => [key, segment, layoutFromCore(layout)]);
}

// Named data of deserialized .ptd files (FlatTensorSerializer.deserialize
// results; with `keys`, corePtdKeys of the file, named by those instead):
// Map key -> { data, tensorLayout, file }. A key in two files: the first
// wins, as the runtime's merged data map would refuse; reported by callers
// that care through `duplicates`.
export function namedDataOf(files) {
  const map = new Map();
  const duplicates = [];
  for (const { name, data, keys } of files) {
    const entries = keys ?? Object.entries(data.namedData).map(([key, e]) => [key, e.bufferIndex, e.tensorLayout ?? null]);
    for (const [key, bufferIndex, tensorLayout] of entries) {
      if (map.has(key)) {
        duplicates.push(key);
        continue;
      }
      map.set(key, { data: asArtifact(data.buffers[bufferIndex]), tensorLayout, file: name });
    }
  }
  return { map, duplicates };
}

