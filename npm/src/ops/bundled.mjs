// serializeBundledProgram and deserializeBundledProgram: BundledProgram
// (.bpte) files, byte for byte as upstream's
// devtools/bundled_program/serialize writes them (src/ops/bundled_program.h).
// A bundle is {version, program, method_test_suites: [{method_name,
// test_cases: [{inputs, expected_outputs}]}]}; a value {val_type: 'Tensor' |
// 'Int' | 'Double' | 'Bool' | null, val}; a tensor {scalar_type, sizes,
// dim_order, data}. `program` and `data` are byte arrays (or files, Blobs,
// Artifacts); int64 values may be BigInts, and come back as BigInts beyond
// 2^53, as programs do.
import { invalidArgument } from '../errors.mjs';
import { encodeRequest, markedReply, programPieces } from '../marshal.mjs';
import { fileRequest, openPath } from '../files-in.mjs';
import { deliver, outputOptions } from '../outputs.mjs';

export function serializeBundledProgram(core, bundle, options = {}) {
  if (bundle === null || typeof bundle !== 'object' || Array.isArray(bundle)) {
    throw invalidArgument('serializeBundledProgram takes { version, program, method_test_suites }');
  }
  const delivery = outputOptions(options, 'options');
  return core.withScope((scope, heap) => {
    // The same JSON text a program object becomes: byte fields by reference,
    // special numbers (NaN, ±Infinity, -0) as bare tokens, BigInts as digits.
    const text = heap.putText(programPieces(bundle, scope));
    return core.run(() => core.module.bundledSerialize(text.ptr, text.len, core.host()),
      (out) => deliver(core, out, delivery)[0]);
  });
}

// The core writes a Double's infinities as upstream's program JSON does
// ("inf", "-inf": exir/schema.py); a bundle's values are Numbers.
function numericDoubles(bundle) {
  for (const suite of bundle.method_test_suites ?? []) {
    for (const testCase of suite?.test_cases ?? []) {
      for (const value of [...(testCase?.inputs ?? []), ...(testCase?.expected_outputs ?? [])]) {
        const v = value?.val_type === 'Double' ? value.val : null;
        if (v && typeof v.double_val === 'string') v.double_val = v.double_val === '-inf' ? -Infinity : Infinity;
      }
    }
  }
  return bundle;
}

// A path stays open while the call runs; the bundle's byte arrays are
// copies (or views of the caller's own bytes when `data` is bytes).
export function deserializeBundledProgram(core, data) {
  const opened = [];
  data = openPath(core, data, opened);
  try {
    return core.withScope((scope, heap) => {
      const request = encodeRequest(fileRequest(core, data, 'bpte', scope, heap, 'data'));
      return core.run(() => core.module.bundledDeserialize(request, core.host()),
        (out) => numericDoubles(markedReply(core.module, core.sources, out)));
    });
  } finally {
    for (const f of opened) f.close();
  }
}

// The head of a safetensors file holding `tensors` ([{name, dtype, shape,
// size}], bytes back to back in that order) and `metadata` ([[key,
// value]]), as the core writes it (src/encode/safetensors_writer.h): for
// the CLI's unbundle, which appends the tensors' bytes.
export function safetensorsHead(core, tensors, metadata) {
  return core.withScope(() => core.run(
    () => core.module.bundledSafetensorsHead(encodeRequest({ tensors, metadata })),
    (out) => deliver(core, out, { output: 'bytes', onProgress: null })[0]));
}
