// safetensors in and out, checked and laid out by the core
// (src/read/safetensors_reader.h, src/encode/safetensors_writer.h): the glue
// reads the 8-byte header length and the header bytes of an entry (see
// sources.mjs) and passes them to the core, which refuses what the reference
// reader refuses (SAFETENSORS_* codes naming the file, tensor and offset).
// Tensor bytes are never read here: callers get (entry, offset, size) ranges.
import { EtpackError } from './errors.mjs';

// The core's bound (kMaxSafetensorsHeader, the reference reader's 100 MB):
// refused before the header is read.
export const MAX_HEADER_BYTES = 100_000_000;

// One call of the core's weights surface (src/bindings/weights_api.cpp):
// `request(heap, scope, fileRequest)` builds the request, putting byte
// inputs in the heap (copies freed after the call) and files in the scope.
// Returns { reply, blobs }.
export function weightsCall(et, op, request) {
  const { guard, withScope, call, host, sources, blobs, fileRequest } = et._internal;
  return guard(() => withScope((scope, heap) => {
    const text = JSON.stringify(request(heap, scope, fileRequest));
    const module = et._internal.module;
    const out = call(() => module.weights(op, text, host()));
    try {
      return { reply: JSON.parse(out.json()), blobs: blobs(module, sources, out) };
    } finally {
      out.delete();
    }
  }), null, []);
}

// The header bytes of a safetensors entry: { file, size, header } where
// header is bytes 8 .. 8+N (read once; at most MAX_HEADER_BYTES).
export async function readHeaderBytes(et, entry, file) {
  const probe = entry.size >= 8 ? await entry.read(0, 8) : new Uint8Array(0);
  const { reply } = weightsCall(et, 'header_size', (heap) => ({ file, size: entry.size, probe: heap.put(probe) }));
  return { file, size: entry.size, header: await entry.read(8, reply.header_size) };
}

// Reads and checks the header of a safetensors entry. Returns { headerSize,
// dataStart, metadata: Map, tensors: Map(name -> {dtype, scalarType (null
// when ExecuTorch has none), shape, offset, size}) } with absolute offsets.
export async function readSafetensorsHeader(entry, file, et) {
  if (!et?._internal) throw new EtpackError('INVALID_ARGUMENT', 'readSafetensorsHeader needs the initialised module (its third argument)');
  const bytes = await readHeaderBytes(et, entry, file);
  const { reply } = weightsCall(et, 'header', (heap) => ({ file, size: bytes.size, header: heap.put(bytes.header) }));
  const tensors = new Map();
  for (const [name, dtype, scalarType, shape, offset, size] of reply.tensors) tensors.set(name, { dtype, scalarType, shape, offset, size });
  return { headerSize: reply.header_size, dataStart: reply.data_start, metadata: new Map(reply.metadata), tensors };
}
