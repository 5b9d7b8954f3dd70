// Synthetic Programs in upstream's JSON shape, for the large-model tests and
// the benchmarks: constant tensors whose bytes the caller supplies (arrays,
// file sources, Blobs), plus optional bulk metadata (Int / IntList / Tensor
// EValues and KernelCalls) that stresses the flatbuffer path.
const FLOAT = 6;

// Keys in upstream's order (_program_to_json writes a union's value before
// its `_type`), so that the benchmarks read what real programs look like.
function tensor(sizes, fields = {}) {
  return {
    val: {
      scalar_type: FLOAT, storage_offset: 0, sizes, dim_order: sizes.map((_, i) => i), requires_grad: false,
      layout: 0, data_buffer_idx: 0, allocation_info: null, shape_dynamism: 0, extra_tensor_info: null, ...fields,
    },
    val_type: 'Tensor',
  };
}

// constants: byte sources, each a float tensor of size byteLength / 4 (sizes
// must be multiples of 4) in constant_buffer[i + 1].
export function syntheticProgram({ constants = [], ints = 0, intLists = 0, tensors = 0, kernelCalls = 0 } = {}) {
  const values = [];
  const input = values.push(tensor([4], { allocation_info: { memory_id: 1, memory_offset_low: 0, memory_offset_high: 0 } })) - 1;
  constants.forEach((c, i) => values.push(tensor([sizeOf(c) / 4], { data_buffer_idx: i + 1 })));
  const firstInt = values.length;
  for (let i = 0; i < ints; ++i) values.push({ val: { int_val: i * 7 - 3 }, val_type: 'Int' });
  for (let i = 0; i < intLists; ++i) {
    const items = [firstInt + (i % Math.max(1, ints)), firstInt + ((i + 1) % Math.max(1, ints))].slice(0, ints ? 2 : 0);
    values.push({ val: { items }, val_type: 'IntList' });
  }
  for (let i = 0; i < tensors; ++i) {
    values.push(tensor([2, 2], { allocation_info: { memory_id: 1, memory_offset_low: 16 * (i % 1024), memory_offset_high: 0 } }));
  }
  const output = values.length - 1;
  const instructions = [];
  for (let i = 0; i < kernelCalls; ++i) {
    const args = [input, (input + 1 + i) % values.length, (input + 2 + i) % values.length, output];
    instructions.push({ instr_args: { op_index: i % 4, args }, instr_args_type: 'KernelCall' });
  }
  return {
    version: 0,
    execution_plan: [{
      name: 'forward',
      container_meta_type: { encoded_inp_str: 'T1#1($)', encoded_out_str: 'T1#1($)' },
      values,
      inputs: [input],
      outputs: [output],
      chains: [{ inputs: [input], outputs: [output], instructions, stacktrace: null }],
      operators: ['add', 'mul', 'sub', 'div'].map((name) => ({ name: `aten::${name}`, overload: 'out' })),
      delegates: [],
      non_const_buffer_sizes: [0, 16 * 1024],
      non_const_buffer_device: null,
    }],
    constant_buffer: [{ storage: [] }, ...constants.map((storage) => ({ storage }))],
    backend_delegate_data: [],
    segments: [],
    constant_segment: { segment_index: 0, offsets: [] },
    mutable_data_segments: null,
    named_data: null,
  };
}

function sizeOf(source) {
  const n = source.byteLength ?? source.size;
  if (n % 4 !== 0) throw new Error(`constant of ${n} bytes is not a whole number of floats`);
  return n;
}

// Deterministic bytes (xorshift), distinct per seed: data that does not dedup
// by accident and shows any misplaced byte.
export function patternBytes(size, seed) {
  const out = new Uint8Array(size);
  const words = new Uint32Array(out.buffer, 0, size >>> 2);
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < words.length; ++i) {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    words[i] = x;
  }
  for (let i = words.length * 4; i < size; ++i) out[i] = i & 0xff;
  return out;
}
