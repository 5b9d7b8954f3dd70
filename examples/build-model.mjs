// Builds a small ExecuTorch program — a linear layer y = x·Wᵀ + b — with its
// weights and named data, writes OUT_DIR/model.pte + OUT_DIR/model.ptd, and
// validates the pair.
//
//   node examples/build-model.mjs [OUT_DIR]      (default ./out)
//
// - W (2x3 float) is a constant tensor stored in the .pte's constant segment.
// - b (2 float) is an EXTERNAL tensor: the program names it "linear.bias" and
//   its bytes come in through externalConstantMap, so they land in model.ptd.
// - A NamedDataStore adds a backend blob kept in the .pte and a packed copy of
//   the weights tagged "model" (so it joins model.ptd).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
// Inside this repository; an installed package is `import init from 'executorch-pack'`.
import init from '../npm/index.node.mjs';

const outDir = resolve(process.argv[2] ?? 'out');
const et = await init();

const FLOAT = 6;  // ScalarType.FLOAT
const EXTERNAL = 1;  // TensorDataLocation.EXTERNAL
const weight = new Float32Array([0.5, -1, 2, 1.5, 0.25, -0.75]);  // W: 2x3
const bias = new Float32Array([0.1, -0.2]);                       // b: 2

const tensor = (sizes, fields = {}) => ({
  val_type: 'Tensor',
  val: {
    scalar_type: FLOAT, storage_offset: 0, sizes, dim_order: sizes.map((_, i) => i), requires_grad: false,
    layout: 0, data_buffer_idx: 0, allocation_info: null, shape_dynamism: 0, extra_tensor_info: null, ...fields,
  },
});
const planned = (offset) => ({ memory_id: 1, memory_offset_low: offset, memory_offset_high: 0 });

// The Program in upstream's _program_to_json shape (snake_case, enums as ints).
const program = {
  version: 0,
  execution_plan: [{
    name: 'forward',
    container_meta_type: { encoded_inp_str: 'T1#1($)', encoded_out_str: 'T1#1($)' },
    values: [
      tensor([1, 3], { allocation_info: planned(0) }),                  // 0: x (input)
      tensor([2, 3], { data_buffer_idx: 1 }),                           // 1: W, constant_buffer[1]
      tensor([2], {                                                     // 2: b, external
        extra_tensor_info: { mutable_data_segments_idx: 0, fully_qualified_name: 'linear.bias', location: EXTERNAL, device_type: 0, device_index: 0 },
      }),
      tensor([1, 2], { allocation_info: planned(16) }),                 // 3: y (output)
    ],
    inputs: [0],
    outputs: [3],
    chains: [{
      inputs: [0],
      outputs: [3],
      instructions: [{ instr_args_type: 'KernelCall', instr_args: { op_index: 0, args: [0, 1, 2, 3, 3] } }],
      stacktrace: null,
    }],
    operators: [{ name: 'aten::linear', overload: 'out' }],
    delegates: [],
    non_const_buffer_sizes: [0, 32],
    non_const_buffer_device: null,
  }],
  // Index 0 is the empty placeholder upstream always writes; bytes may be any typed array.
  constant_buffer: [{ storage: [] }, { storage: new Uint8Array(weight.buffer) }],
  backend_delegate_data: [],
  segments: [],
  constant_segment: { segment_index: 0, offsets: [] },
  mutable_data_segments: null,
  named_data: null,
};

const store = new et.NamedDataStore();
store.addNamedData('example.backend_blob', new TextEncoder().encode('opaque backend data'), { alignment: 16 });
store.addNamedData('linear.weight_packed', weight, {
  alignment: 64, externalTag: 'model', tensorLayout: { scalarType: FLOAT, sizes: [2, 3], dimOrder: [0, 1] },
});

const { pte, ptd } = et.serializeForExecutorch(
  { program, mutableData: null, externalConstantMap: { model: { 'linear.bias': 0 } }, externalConstantBuffer: [bias] },
  { segmentAlignment: 128 },
  new et.FlatTensorSerializer({ segmentAlignment: 64 }),
  store,
);
store.delete();

mkdirSync(outDir, { recursive: true });
const ptePath = join(outDir, 'model.pte');
writeFileSync(ptePath, pte);
const ptdFiles = {};
for (const [tag, bytes] of Object.entries(ptd)) {
  writeFileSync(join(outDir, `${tag}.ptd`), bytes);
  ptdFiles[`${tag}.ptd`] = bytes;
}

const report = et.validate(pte, ptdFiles);
const summary = et.inspect(pte);
const method = summary.methods[0];
console.log(`wrote ${ptePath} (${pte.byteLength} bytes)`);
for (const [name, bytes] of Object.entries(ptdFiles)) console.log(`wrote ${join(outDir, name)} (${bytes.byteLength} bytes)`);
console.log(`method ${method.name}: ${method.operators.map((o) => `${o.name}.${o.overload}`).join(', ')}; ` +
  `inputs ${method.inputs.map((v) => `${v.dtype}[${v.shape}]`).join(', ')} -> outputs ${method.outputs.map((v) => `${v.dtype}[${v.shape}]`).join(', ')}`);
console.log(`constants: ${summary.constants.count} tensor(s), ${summary.constants.totalBytes} bytes; ` +
  `named data in .pte: ${summary.namedData.key.join(', ')}; external tensors: ${summary.externalTensors.map((t) => t.name).join(', ')}`);
for (const [name, bytes] of Object.entries(ptdFiles)) {
  const { key, size } = et.inspect(bytes).namedData;  // columns: entry i is key[i], size[i]
  console.log(`${name}: ${key.map((k, i) => `${k} (${size[i]} bytes)`).join(', ')}`);
}
for (const f of [...report.errors, ...report.warnings]) console.log(`  ${f.code}: ${f.message}`);
console.log(`validate: ${report.ok ? 'OK' : 'FAILED'} (${report.errors.length} errors, ${report.warnings.length} warnings)`);
process.exitCode = report.ok && report.warnings.length === 0 ? 0 : 1;
