// diff: two programs (with their data files) or two data files compared by
// meaning; layout reported apart; CLI exit codes 0 / 1 / 2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFORMANCE, loadApi } from './helpers/common.mjs';
import { runCli, scratch } from './helpers/scratch.mjs';
import { startRangeServer } from './helpers/range-server.mjs';
import { float32, safetensorsBytes } from './helpers/safetensors.mjs';

const et = await loadApi();
const EVERYTHING = join(CONFORMANCE, '13_everything');
const DATA = [join(EVERYTHING, 'model.ptd'), join(EVERYTHING, 'shard_b.ptd')];
const { dir: tmp, file } = scratch('etpack-diff-');
const run = runCli;

// 13_everything repacked with 4096-byte segments and its delegates inline.
const repacked = file('repacked.pte', et.repack(join(EVERYTHING, 'out.pte'), {
  segmentAlignment: 4096, data: { 'model.ptd': DATA[0], 'shard_b.ptd': DATA[1] },
}).pte);

test('a program and its repack with another segment alignment: equivalent, not identical, layout listed', async () => {
  const r = await et.diff(join(EVERYTHING, 'out.pte'), repacked, { dataA: DATA, dataB: DATA });
  assert.equal(r.equivalent, true, JSON.stringify(r.programFields));
  assert.equal(r.identical, false);
  assert.equal(r.summary.externalDataCompared, true);
  assert.equal(r.summary.bytesChanged, 0);
  const fields = r.layout.map((f) => f.field);
  assert.ok(fields.includes('segmentAlignment'));
  assert.deepEqual(r.layout.find((f) => f.field === 'segmentAlignment'), { field: 'segmentAlignment', a: 128, b: 4096 });
  // Every constant, mutable and external tensor was hashed.
  for (const c of [r.tensors.added, r.tensors.removed, r.tensors.changed]) assert.equal(c.length, 0);
  // Bytes in memory compare like the same file on disk.
  const again = await et.diff(readFileSync(join(EVERYTHING, 'out.pte')), readFileSync(repacked),
    { dataA: DATA.map((p) => readFileSync(p)), dataB: DATA });
  assert.equal(again.equivalent, true, JSON.stringify(again.programFields));
});

test('a file against itself is identical', async () => {
  const r = await et.diff(join(EVERYTHING, 'out.pte'), join(EVERYTHING, 'out.pte'));
  assert.equal(r.identical, true);
  assert.equal(r.equivalent, true);
  assert.equal(r.layout.length, 0);
});

test('a different model: not equivalent, the changes listed', async () => {
  const r = await et.diff(join(EVERYTHING, 'out.pte'), join(CONFORMANCE, '11_external_constants_only', 'out.pte'));
  assert.equal(r.equivalent, false);
  const forward = r.methods.changed.find((m) => m.name === 'forward');
  assert.deepEqual(forward.changes.find((c) => c.field === 'instructionCount'), { field: 'instructionCount', a: 17, b: 8 });
  assert.ok(r.tensors.added.some((t) => t.name === 'emb.weight' && t.kind === 'external' && t.dtype === 'Half'));
  assert.ok(r.tensors.removed.some((t) => t.name === 'lin.weight'));
  assert.deepEqual(r.namedData.removed.map((n) => n.name).sort(),
    ['xnnpack.weight.a', 'xnnpack.weight.a_alias', 'xnnpack.weight.b', 'xnnpack.weight.c', 'xnnpack.weight.d']);
});

test('new external weights: the changed tensor is named, with both hashes and the bytes changed', async () => {
  const weights = file('w.safetensors', safetensorsBytes([
    { name: 'lin.weight', dtype: 'F32', shape: [3, 3], bytes: float32([9, 8, 7, 6, 5, 4, 3, 2, 1]) },
    // lin.bias keeps its bytes
    { name: 'lin.bias', dtype: 'F32', shape: [3], bytes: new Uint8Array(readFileSync(join(EVERYTHING, 'extconst_1.bin'))) },
  ]));
  const { ptd } = await et.ptdFromWeights(join(EVERYTHING, 'out.pte'), [weights]);
  const newPtd = file('new.ptd', ptd);
  const r = await et.diff(join(EVERYTHING, 'out.pte'), join(EVERYTHING, 'out.pte'), { dataA: DATA, dataB: [newPtd, DATA[1]] });
  assert.equal(r.equivalent, false);
  assert.deepEqual(r.tensors.changed.map((c) => [c.name, c.fields]), [['lin.weight', ['sha256']]]);
  assert.equal(r.summary.bytesChanged, 36);
  // ext.w is in model.ptd but not in the new one.
  assert.deepEqual(r.externalData.removed.map((n) => n.name), ['ext.w']);
  // Two .ptd files directly.
  const d = await et.diff(DATA[0], newPtd);
  assert.equal(d.kind, 'ptd');
  assert.equal(d.equivalent, false);
  assert.deepEqual(d.namedData.changed.map((c) => c.name), ['lin.weight']);
  assert.deepEqual(d.namedData.removed.map((c) => c.name), ['ext.w']);
});

test('a .pte against a .ptd is a coded error', async () => {
  await assert.rejects(et.diff(join(EVERYTHING, 'out.pte'), DATA[0]), (e) => e.code === 'DIFF_KIND_MISMATCH');
});

test('CLI diff: exit 0 equivalent, 1 different with changes listed, 2 usage or I/O', async () => {
  let r = await run(['diff', join(EVERYTHING, 'out.pte'), repacked, '--data-a', DATA[0], '--data-a', DATA[1], '--data-b', DATA[0], '--data-b', DATA[1]]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout.split('\n')[0], /equivalent \(layout differs\)$/);
  assert.match(r.stdout, /segmentAlignment: 128 -> 4096/);
  r = await run(['diff', join(EVERYTHING, 'out.pte'), join(CONFORMANCE, '11_external_constants_only', 'out.pte')]);
  assert.equal(r.status, 1);
  assert.match(r.stdout, /: different\n/);
  assert.match(r.stdout, /\+ emb\.weight external Half\[3, 5\]/);
  assert.match(r.stdout, /instructionCount: 17 -> 8/);
  r = await run(['diff', DATA[0], DATA[0], '--json']);
  assert.equal(r.status, 0);
  assert.equal(JSON.parse(r.stdout).identical, true);
  r = await run(['diff', join(EVERYTHING, 'out.pte')]);
  assert.equal(r.status, 2);
  r = await run(['diff', join(EVERYTHING, 'out.pte'), join(tmp, 'missing.pte')]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /IO_ERROR/);
  // A truncated input is an invalid input (exit 1, as "different"; 2 is
  // usage or I/O), coded and named.
  const cut = file('cut.pte', readFileSync(join(EVERYTHING, 'out.pte')).subarray(0, 300));
  r = await run(['diff', join(EVERYTHING, 'out.pte'), cut]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /error \[[A-Z_]+\]: .*cut\.pte: /);
});

test('CLI diff of URLs (range requests) gives what the same local files give', async (t) => {
  const server = await startRangeServer({ 'out.pte': join(EVERYTHING, 'out.pte'), 'repacked.pte': repacked, 'model.ptd': DATA[0], 'shard_b.ptd': DATA[1] });
  t.after(() => server.close());
  const local = await run(['diff', join(EVERYTHING, 'out.pte'), repacked, '--data-a', DATA[0], '--data-a', DATA[1], '--data-b', DATA[0], '--data-b', DATA[1], '--json']);
  const remote = await run(['diff', server.url('f', 'out.pte'), server.url('redirect', 'repacked.pte'), '--data-a', server.url('f', 'model.ptd'),
    '--data-a', server.url('norange', 'shard_b.ptd'), '--data-b', DATA[0], '--data-b', DATA[1], '--json']);
  assert.equal(remote.status, 0, remote.stderr);
  assert.equal(local.status, 0, local.stderr);
  const [l, r] = [JSON.parse(local.stdout), JSON.parse(remote.stdout)];
  assert.deepEqual(r.summary, l.summary);
  assert.deepEqual(r.layout, l.layout);
  assert.equal(r.equivalent, true);
  assert.match(remote.stderr, /fetched .* of http:\/\/127\.0\.0\.1/);
});
