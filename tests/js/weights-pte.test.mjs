// New weights for constants stored in the .pte (programs exported without a
// .ptd): pteWithWeights and `repack --weights`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFORMANCE, loadApi } from './helpers/common.mjs';
import { runCli, scratch } from './helpers/scratch.mjs';
import { float32, safetensorsBytes } from './helpers/safetensors.mjs';

const et = await loadApi();
const EVERYTHING = join(CONFORMANCE, '13_everything');
const { dir: tmp, file } = scratch('etpack-weights-pte-');
const run = runCli;

// 13_everything with names on two of its constants (values[19]: Float[3],
// values[23]: Int[5, 5]), as an exporter that keeps fqns writes them.
function namedProgram() {
  const pte = et.deserializePteBinary(readFileSync(join(EVERYTHING, 'out.pte')));
  const values = pte.program.execution_plan[0].values;
  const name = (v, fqn) => {
    values[v].val.extra_tensor_info = { mutable_data_segments_idx: 0, fully_qualified_name: fqn, location: 0, device_type: 0, device_index: 0 };
  };
  name(19, 'head.bias');
  name(23, 'head.table');
  return et.serializePteBinary(pte, { segmentAlignment: 128, extractDelegateSegments: true });
}
const NAMED = namedProgram();
const NEW_BIAS = float32([0.5, -0.25, 8]);
const constantBytes = (pte, index) => {
  const { program } = et.deserializePteBinary(pte);
  const b = program.constant_buffer[index].storage;
  return Uint8Array.from(b instanceof Uint8Array ? b : b.toBytes());
};

test('pteWithWeights: the named constant gets the new bytes, the rest stays; diff names exactly that change', async () => {
  const st = safetensorsBytes([
    { name: 'model.head.bias', dtype: 'F32', shape: [3], bytes: NEW_BIAS },
    { name: 'other', dtype: 'U8', shape: [2], bytes: new Uint8Array(2) },
  ]);
  const r = await et.pteWithWeights(NAMED, [st], { rename: [['model.', '']] });
  assert.deepEqual(r.replaced, ['head.bias']);
  assert.deepEqual(r.kept, ['head.table']);
  assert.deepEqual(r.unused, ['other']);
  assert.equal(et.validate(r.pte, { 'model.ptd': readFileSync(join(EVERYTHING, 'model.ptd')), 'shard_b.ptd': readFileSync(join(EVERYTHING, 'shard_b.ptd')) }).ok, true);
  assert.deepEqual(constantBytes(r.pte, 1).subarray(0, 12), NEW_BIAS);
  const d = await et.diff(NAMED, r.pte);
  assert.equal(d.equivalent, false);
  assert.deepEqual(d.tensors.changed.map((c) => [c.name, c.fields]), [['head.bias', ['sha256']]]);
  assert.deepEqual(d.layout, []);  // same layout as the input
});

test('pteWithWeights: dtype/shape mismatches listed; nothing named is an error', async () => {
  const st = safetensorsBytes([
    { name: 'head.bias', dtype: 'F16', shape: [3], bytes: new Uint8Array(6) },
    { name: 'head.table', dtype: 'I32', shape: [25], bytes: new Uint8Array(100) },
  ]);
  await assert.rejects(et.pteWithWeights(NAMED, [st]), (e) => {
    assert.equal(e.code, 'WEIGHTS_MISMATCH');
    assert.deepEqual(e.problems.map((p) => [p.name, p.problem]), [['head.bias', 'dtype'], ['head.table', 'shape']]);
    return true;
  });
  const none = safetensorsBytes([{ name: 'x', dtype: 'U8', shape: [1], bytes: new Uint8Array(1) }]);
  await assert.rejects(et.pteWithWeights(NAMED, [none]), (e) => e.code === 'NO_MATCHING_TENSORS');
});

test('CLI repack --weights writes the new constants; a mismatch exits 1 and writes nothing', async () => {
  const input = file('named.pte', NAMED);
  const st = file('bias.safetensors', safetensorsBytes([{ name: 'head.bias', dtype: 'F32', shape: [3], bytes: NEW_BIAS }]));
  const out = join(tmp, 'out.pte');
  // The program's own .ptd files come along (its EXTERNAL tensors keep resolving).
  const data = ['model.ptd', 'shard_b.ptd'].map((f) => join(EVERYTHING, f));
  let r = await run(['repack', input, ...data, '--weights', st, '-o', out]);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(constantBytes(readFileSync(out), 1).subarray(0, 12), NEW_BIAS);
  const bad = file('bad.safetensors', safetensorsBytes([{ name: 'head.bias', dtype: 'F32', shape: [1, 3], bytes: NEW_BIAS }]));
  const never = join(tmp, 'never.pte');
  r = await run(['repack', input, ...data, '--weights', bad, '-o', never]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /WEIGHTS_MISMATCH/);
  assert.match(r.stderr, /head\.bias/);
  assert.equal(existsSync(never), false);
});
