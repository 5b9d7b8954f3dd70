// deserializePteBinary's reply (src/ops/program_reply.h): the program
// comes back as streamed JSON text plus fixups; every value JSON.parse
// cannot give exactly must land at its own place, in lists and tables alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadApi } from './helpers/common.mjs';
import { syntheticProgram } from './helpers/programs.mjs';

const et = await loadApi();

function roundTrip(extraValues, patch = () => {}) {
  const program = syntheticProgram({ constants: [new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8])] });
  program.execution_plan[0].values.push(...extraValues);
  patch(program);
  return et.deserializePteBinary(et.serializeForExecutorch({ program }).pte).program;
}

test('special doubles, BigInts, blobs and NUL-led strings come back at their own places', () => {
  const doubles = [NaN, Infinity, -Infinity, -0, 1.5, 5e-324];
  const ints = [2n ** 62n, -(2n ** 62n) , 5n, 2n ** 53n - 1n];
  const p = roundTrip([
    { val: { items: doubles }, val_type: 'DoubleList' },
    { val: { double_val: NaN }, val_type: 'Double' },
    { val: { double_val: -0 }, val_type: 'Double' },
    { val: { double_val: -Infinity }, val_type: 'Double' },
    { val: { int_val: -(2n ** 63n) }, val_type: 'Int' },
    { val: { items: ints }, val_type: 'IntList' },
    { val: { string_val: '\u0000N5' }, val_type: 'String' },
  ], (program) => { program.execution_plan[0].name = '\u0000\u0000forward'; });
  const values = p.execution_plan[0].values;
  const base = values.length - 7;
  const got = values[base].val.items;
  assert.equal(got.length, doubles.length);
  doubles.forEach((d, i) => assert.ok(Object.is(got[i], d), `DoubleList[${i}]: ${got[i]} vs ${d}`));
  assert.ok(Number.isNaN(values[base + 1].val.double_val));
  // A Double of -0 equals the default 0.0: omitted, as upstream's builder does.
  assert.ok(Object.is(values[base + 2].val.double_val, 0) || values[base + 2].val.double_val === undefined);
  assert.equal(values[base + 3].val.double_val, '-inf');  // upstream's Double spelling, as before
  assert.equal(values[base + 4].val.int_val, -(2n ** 63n));
  assert.deepEqual(values[base + 5].val.items, [2n ** 62n, -(2n ** 62n), 5, 2 ** 53 - 1]);
  assert.equal(values[base + 6].val.string_val, '\u0000N5');
  assert.equal(values[base + 6].val_type, 'String');
  assert.equal(p.execution_plan[0].name, '\u0000\u0000forward');
  assert.deepEqual([...p.constant_buffer[1].storage], [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.ok(p.constant_buffer[0].storage instanceof Uint8Array);
  assert.deepEqual(values[0].val.dim_order, [0]);  // structural bytes stay a plain list
  assert.deepEqual(Object.keys(values[0].val), ['scalar_type', 'storage_offset', 'sizes', 'dim_order', 'requires_grad',
    'layout', 'data_buffer_idx', 'allocation_info', 'shape_dynamism', 'extra_tensor_info']);
});

test('a reserialized reply gives the same bytes', () => {
  const program = syntheticProgram({ ints: 50, intLists: 20, tensors: 20, kernelCalls: 10, constants: [new Uint8Array(16)] });
  const first = et.serializeForExecutorch({ program }).pte;
  const back = et.deserializePteBinary(first);
  const again = et.serializePteBinary(back);
  assert.deepEqual(Buffer.from(again), Buffer.from(first));
});

test('text past ASCII comes back exact (the reply is decoded as UTF-8)', () => {
  const names = ['fórward', 'ß→∑', '😀 plan', 'ÿ\u0080\u07ff\u0800\uffff'];
  for (const name of names) {
    const p = roundTrip([{ val: { string_val: `é${name}` }, val_type: 'String' }], (program) => {
      program.execution_plan[0].name = name;
      program.execution_plan[0].operators[0].name = `aten::${name}`;
    });
    assert.equal(p.execution_plan[0].name, name);
    assert.equal(p.execution_plan[0].operators[0].name, `aten::${name}`);
    assert.equal(p.execution_plan[0].values.at(-1).val.string_val, `é${name}`);
  }
});

test('a program with delegates and constants in segments comes back as it went in', () => {
  const program = syntheticProgram({ constants: [new Uint8Array(32).fill(7), new Uint8Array(8).fill(9)], ints: 4 });
  program.execution_plan[0].delegates = [
    { id: 'BackendA', processed: { location: 0, index: 0 }, compile_specs: [{ key: 'k', value: new Uint8Array([1, 2]) }] },
    { id: 'BackendB', processed: { location: 0, index: 1 }, compile_specs: [] },
  ];
  program.backend_delegate_data = [{ data: new Uint8Array(40).fill(1) }, { data: new Uint8Array(24).fill(2) }];
  const { pte } = et.serializeForExecutorch({ program }, { extractDelegateSegments: true });
  const back = et.deserializePteBinary(pte);
  assert.deepEqual(back.program.execution_plan[0].delegates.map((d) => d.processed), [{ location: 0, index: 0 }, { location: 0, index: 1 }]);
  assert.deepEqual(back.program.backend_delegate_data.map((d) => [...d.data]), [Array(40).fill(1), Array(24).fill(2)]);
  assert.deepEqual([...back.program.constant_buffer[1].storage.subarray(0, 32)], Array(32).fill(7));
  assert.deepEqual(back.program.segments, []);
  assert.deepEqual(Buffer.from(et.serializePteBinary(back, { extractDelegateSegments: true })), Buffer.from(pte));
});

test('bytes that restoring replaces are still checked: a broken segment or named-data table is refused', () => {
  const file = new Uint8Array(readFileSync(new URL('../fuzz/regressions/hostile_segments.pte', import.meta.url)));
  // (A vtable of size 0 is no longer refused: flatbuffers' Verifier, which
  // the runtime runs, accepts it. A table pointing outside the buffer is.)
  for (const [at, value, message] of [[10885, 3, /DataSegment vtable offset out of range/], [1837, 3, /NamedData vtable offset out of range/]]) {
    const bad = file.slice();
    bad[at] = value;
    assert.throws(() => et.deserializePteBinary(bad), (e) => e.code === 'MALFORMED_FILE' && message.test(e.message));
  }
});
