// Weights exchange in logical row-major order whatever a tensor's
// dim_order, one name shared by tensors of different layouts, escaped
// names, and diff comparing numbers by their bits (issue 28).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadApi } from './helpers/common.mjs';
import { float32, safetensorsBytes } from './helpers/safetensors.mjs';

const et = await loadApi();
const FLOAT = 6, HALF = 5, EXTERNAL = 1;

const tensor = (sizes, dimOrder, extra) => ({ val_type: 'Tensor', val: { scalar_type: FLOAT, sizes, dim_order: dimOrder, ...extra } });
function program(values, constants) {
  return {
    version: 0,
    execution_plan: [{
      name: 'forward', values, inputs: [], outputs: [],
      chains: [{ inputs: [], outputs: [], instructions: [] }], operators: [], delegates: [], non_const_buffer_sizes: [0],
    }],
    constant_buffer: [{ storage: [] }, ...constants.map((storage) => ({ storage }))],
  };
}

// w: logical [[1, 2, 3], [4, 5, 6]] stored column-major (dim_order [1, 0]);
// e: external, logical [[10, 20], [30, 40]] stored column-major;
// c: channels last [1, 2, 2, 2] (dim_order [0, 2, 3, 1]), logical value = its row-major index.
const W_STORED = float32([1, 4, 2, 5, 3, 6]);
const E_STORED = float32([10, 30, 20, 40]);
const C_LOGICAL = [0, 1, 2, 3, 4, 5, 6, 7];
const C_STORED = float32([0, 4, 1, 5, 2, 6, 3, 7]);  // (n, h, w, c) order: c innermost
function layoutModel() {
  const values = [
    tensor([2, 3], [1, 0], { data_buffer_idx: 1, extra_tensor_info: { fully_qualified_name: 'w', location: 0 } }),
    tensor([2, 2], [1, 0], { extra_tensor_info: { fully_qualified_name: 'e', location: EXTERNAL } }),
    tensor([1, 2, 2, 2], [0, 2, 3, 1], { data_buffer_idx: 2, extra_tensor_info: { fully_qualified_name: 'c', location: 0 } }),
  ];
  const { pte, ptd } = et.serializeForExecutorch(
    { program: program(values, [W_STORED, C_STORED]), externalConstantMap: { model: { e: 0 } }, externalConstantBuffer: [E_STORED] },
    { segmentAlignment: 128 }, new et.FlatTensorSerializer(), new et.NamedDataStore());
  return { pte, ptd: ptd.model };
}

function readSafetensors(bytes) {
  const n = Number(Buffer.from(bytes).readBigUInt64LE(0));
  const header = JSON.parse(Buffer.from(bytes.subarray(8, 8 + n)).toString());
  const data = (name) => Array.from(new Float32Array(bytes.slice(8 + n + header[name].data_offsets[0], 8 + n + header[name].data_offsets[1]).buffer));
  return { header, data };
}

test('export-weights writes row-major values whatever the dim_order; weights puts them back byte for byte', async () => {
  const { pte, ptd } = layoutModel();
  const exported = et.exportWeights(pte, { 'model.ptd': ptd });
  const { header, data } = readSafetensors(exported.safetensors);
  assert.deepEqual(header.w.shape, [2, 3]);
  assert.deepEqual(data('w'), [1, 2, 3, 4, 5, 6]);
  assert.deepEqual(data('e'), [10, 20, 30, 40]);
  assert.deepEqual(data('c'), C_LOGICAL);
  // Import: each value lands at its index in the tensor's own dim_order.
  const fresh = await et.ptdFromWeights(pte, [exported.safetensors]);
  assert.deepEqual(Buffer.from(fresh.ptd), Buffer.from(ptd));
  const repacked = await et.pteWithWeights(pte, [exported.safetensors]);
  assert.deepEqual(Buffer.from(repacked.pte), Buffer.from(pte));
  assert.deepEqual(repacked.replaced.sort(), ['c', 'w']);
});

test('new row-major weights are stored in the tensor\'s dim_order', async () => {
  const { pte } = layoutModel();
  const checkpoint = safetensorsBytes([
    { name: 'w', dtype: 'F32', shape: [2, 3], bytes: float32([11, 12, 13, 14, 15, 16]) },
    { name: 'e', dtype: 'F32', shape: [2, 2], bytes: float32([1, 2, 3, 4]) },
  ]);
  const { ptd } = await et.ptdFromWeights(pte, [checkpoint]);
  const data = new et.FlatTensorSerializer().deserialize(ptd);
  assert.deepEqual(Array.from(new Float32Array(Uint8Array.from(data.buffers[data.namedData.e.bufferIndex]).buffer)), [1, 3, 2, 4]);
  const { pte: out } = await et.pteWithWeights(pte, [checkpoint]);
  const w = et.deserializePteBinary(out).program.constant_buffer[1].storage;  // padding attached
  assert.deepEqual(Array.from(new Float32Array(Uint8Array.from(w).buffer, 0, 6)), [11, 14, 12, 15, 13, 16]);
});

function sharedNameModel() {
  const values = [
    tensor([3], [0], { data_buffer_idx: 1, extra_tensor_info: { fully_qualified_name: 'w', location: 0 } }),
    { val_type: 'Tensor', val: { scalar_type: HALF, sizes: [6], dim_order: [0], data_buffer_idx: 2, extra_tensor_info: { fully_qualified_name: 'w', location: 0 } } },
  ];
  return et.serializePteBinary({ program: program(values, [float32([1, 2, 3]), new Uint8Array(12)]) });
}

test('one name, two layouts: import refuses naming the tensor that differs; export refuses naming both', async () => {
  const pte = sharedNameModel();
  const checkpoint = safetensorsBytes([{ name: 'w', dtype: 'F32', shape: [3], bytes: float32([7, 8, 9]) }]);
  await assert.rejects(et.pteWithWeights(pte, [checkpoint]), (e) => {
    assert.equal(e.code, 'WEIGHTS_MISMATCH');
    assert.match(e.message, /execution_plan\[0\]\.values\[1\]/);
    assert.equal(e.problems.length, 1);
    return true;
  });
  assert.throws(() => et.exportWeights(pte), (e) => {
    assert.equal(e.code, 'WEIGHTS_NAME_CONFLICT');
    assert.match(e.message, /values\[0\].*values\[1\]/);
    return true;
  });
});

test('a short .ptd entry names the tensor, the bytes it needs and what the file holds', () => {
  const { pte } = layoutModel();
  const values = [tensor([2], [0], { extra_tensor_info: { fully_qualified_name: 'e', location: EXTERNAL } })];
  const { ptd } = et.serializeForExecutorch(
    { program: program(values, []), externalConstantMap: { model: { e: 0 } }, externalConstantBuffer: [float32([1, 2])] },
    {}, new et.FlatTensorSerializer(), new et.NamedDataStore());
  assert.throws(() => et.exportWeights(pte, { 'small.ptd': ptd.model }), (e) => {
    assert.equal(e.code, 'EXTERNAL_DATA_MISSING');
    assert.match(e.message, /"e" \(Float\[2, 2\] dim_order \[1, 0\]\) needs 16 bytes; its entry in small\.ptd holds 8/);
    return true;
  });
});

test('a lone surrogate in a tensor name is printed escaped, never as U+FFFD', async () => {
  const values = [tensor([1], [0], { extra_tensor_info: { fully_qualified_name: 'x\ud800', location: EXTERNAL } })];
  // As JSON text: its \ud800 escape reaches the file as that code unit's bytes.
  const pte = et.serializePteBinary({ program: JSON.stringify(program(values, [])) });
  const checkpoint = safetensorsBytes([{ name: 'y', dtype: 'F32', shape: [1], bytes: float32([1]) }]);
  await assert.rejects(et.ptdFromWeights(pte, [checkpoint]), (e) => {
    assert.equal(e.code, 'WEIGHTS_MISMATCH');
    assert.ok(e.message.includes('"x\\ud800"'), e.message);
    assert.ok(!e.message.includes('\ufffd'));
    assert.equal(e.problems[0].name, 'x\ud800');  // JSON.parse of the core's \ud800 escape
    return true;
  });
});

test('export and diff name a lone-surrogate tensor as the file holds it (\\ud800), never U+FFFD', async () => {
  const model = (bytes) => {
    const values = [tensor([1], [0], { data_buffer_idx: 1, extra_tensor_info: { fully_qualified_name: 'c\ud800' } })];
    return et.serializePteBinary({ program: JSON.stringify(program(values, [Array.from(bytes)])) });
  };
  const a = model(float32([1]));
  const exported = et.exportWeights(a);
  assert.deepEqual(exported.tensors, ['c\ud800']);
  const verdict = await et.diff(a, model(float32([2])));
  const names = JSON.stringify(verdict);
  assert.ok(names.includes('"c\\ud800"'), names);
  assert.ok(!names.includes('\ufffd'), names);
});

test('diff names .ptd keys as the file holds them: a lone surrogate escaped (\\ud800), two such keys two entries', async () => {
  // Keys reach the file as each code unit's bytes (the request is JSON text).
  const ptd = (bytes) => new et.FlatTensorSerializer().serialize({
    buffers: [bytes, new Uint8Array([9])], namedData: { 'k\ud800': { bufferIndex: 0 }, 'k\udc00': { bufferIndex: 1 } },
  });
  const verdict = await et.diff(ptd(new Uint8Array([1])), ptd(new Uint8Array([2])));
  assert.equal(verdict.equivalent, false);
  assert.deepEqual(verdict.namedData.changed.map((c) => c.name), ['k\ud800']);
  const text = JSON.stringify(verdict);
  assert.ok(text.includes('"k\\ud800"'), text);
  assert.ok(!text.includes('\ufffd'), text);
  // Each key its own entry (decoded text made both "k\ufffd": one entry).
  const added = await et.diff(ptd(new Uint8Array([1])), new et.FlatTensorSerializer().serialize({
    buffers: [new Uint8Array([1]), new Uint8Array([9])], namedData: { 'k\ud800': { bufferIndex: 0 } },
  }));
  assert.deepEqual(added.namedData.removed.map((r) => r.name), ['k\udc00']);
});

test('diff compares numbers by their bits: -0.0 and 0.0 differ', async () => {
  // A DoubleList item keeps -0.0 in the file (a Double of -0.0 is omitted as
  // upstream omits it, so it would read back as +0.0 on both sides).
  const withDouble = (d) => et.serializePteBinary({ program: program([{ val_type: 'DoubleList', val: { items: [d] } }], []) });
  const same = await et.diff(withDouble(0), withDouble(0));
  assert.equal(same.equivalent, true);
  assert.equal(same.identical, true);
  const d = await et.diff(withDouble(0), withDouble(-0));
  assert.equal(d.equivalent, false);
  assert.equal(d.identical, false);
});

test('diff compares NaNs by their bits: another payload is a change', async () => {
  const bytes = et.serializePteBinary({ program: program([{ val_type: 'Double', val: { double_val: NaN } }], []) });
  const other = Uint8Array.from(bytes);
  const canonical = Buffer.from([0, 0, 0, 0, 0, 0, 0xf8, 0x7f]);
  const at = Buffer.from(other).indexOf(canonical);
  assert.ok(at > 0);
  other[at] = 1;  // a quiet NaN with payload 1
  assert.equal((await et.diff(bytes, Uint8Array.from(bytes))).equivalent, true);
  const d = await et.diff(bytes, other);
  assert.equal(d.equivalent, false);
  assert.deepEqual(d.programFields.map((f) => f.path), ['execution_plan[0].values[0].val.double_val']);
});

test('safetensors the reference refuses are refused: holes, BOM, 36.0, 48e0, duplicate keys', async () => {
  const { pte } = layoutModel();
  const good = { dtype: 'F32', shape: [2, 2], data_offsets: [0, 16] };
  const cases = [
    ['SAFETENSORS_OFFSETS', JSON.stringify({ e: { ...good, data_offsets: [4, 20] } }), 20],
    ['SAFETENSORS_HEADER', '\ufeff' + JSON.stringify({ e: good }), 16],
    ['SAFETENSORS_OFFSETS', '{"e":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16.0]}}', 16],
    ['SAFETENSORS_OFFSETS', '{"e":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16e0]}}', 16],
    ['SAFETENSORS_HEADER', `{"e":${JSON.stringify(good)},"e":${JSON.stringify(good)}}`, 16],
  ];
  for (const [code, header, dataBytes] of cases) {
    const bytes = safetensorsBytes([{ name: 'e', dtype: 'F32', shape: [2, 2], bytes: new Uint8Array(dataBytes) }], { header });
    await assert.rejects(et.ptdFromWeights(pte, [bytes]), (e) => e.code === code || assert.fail(`${header}: ${e.code} ${e.message}`));
  }
});
