// The tensors of a .pte (as the core classifies them: src/ops/weights_ops.h
// program_tensors) with their bytes from the deserialized program
// (deserializePteBinary's upstream shape: constants restored into
// constant_buffer), and of .ptd files, as lists of named byte ranges. Shared
// by diff and the weights commands. Nothing here reads tensor bytes: data
// stays Artifacts (references to the input files, artifact-slices.mjs) until
// a caller streams or hashes them (range-hash.mjs).
import { asArtifact, sliceArtifact } from './artifact-slices.mjs';
import { weightsCall } from './safetensors.mjs';
import { layoutFromCore } from './marshal.mjs';

// Every tensor of every plan of the .pte `source` that carries data or a
// name: constants (with their constant_buffer bytes from `program`, its
// deserialized program, padding cut off), external tensors (by fqn) and
// mutable buffers. Each: { kind, name (fqn as the program holds it, or
// null), fileName (as the file holds it: a lone surrogate stays one, where
// the deserialized program has U+FFFD), path, scalarType, sizes, dimOrder,
// nbytes, data (Artifact or null), bufferIndex }.
export function programTensors(et, source, program) {
  const constants = program.constant_buffer ?? [];
  const { reply } = weightsCall(et, 'program_tensors', (heap, scope, fileRequest) => ({ pte: fileRequest(source, 'pte', scope, heap, 'pte') }));
  return reply.tensors.map(([kind, name, fileName, path, scalarType, sizes, dimOrder, nbytes, bufferIndex]) => {
    const storage = kind === 'constant' ? asArtifact(constants[bufferIndex]?.storage) : null;
    const data = storage ? (nbytes !== null && nbytes <= storage.size ? sliceArtifact(storage, nbytes) : storage) : null;
    return { kind, name, fileName, path, scalarType, sizes, dimOrder, nbytes, data, bufferIndex };
  });
}

// The tensors as the core's weights calls read them (src/ops/weights_ops.h):
// a null name is an unnamed constant.
export function tensorsToCore(tensors) {
  return tensors.map((t) => ({
    name: t.name, path: t.path, scalar_type: t.scalarType, sizes: t.sizes, dim_order: t.dimOrder,
    // Mutable buffers index mutable data, not constant_buffer: no weights there.
    external: t.kind === 'external', buffer: t.kind === 'constant' ? t.bufferIndex : 0,
  }));
}

// A .ptd's named-data keys as the file holds them, from the core (like
// fileName above: a lone surrogate stays one and prints escaped, \ud800;
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

