// One shape for "a model and its data files" (issue 25): an array of files
// (named by their own path, URL or File name) or a record { name: file },
// accepted by validate, repack (data and merge), diff and exportWeights
// alike, with the same results either way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFORMANCE, loadApi } from './helpers/common.mjs';

const et = await loadApi();
const EXTCONST = join(CONFORMANCE, '11_external_constants_only');
const PTE = join(EXTCONST, 'out.pte');
const PTD = join(EXTCONST, 'model.ptd');
const bytesOf = (b) => (b instanceof Uint8Array ? b : b.toBytes());

test('validate: an array of paths or opened Blobs is the record of their names', async () => {
  const byRecord = et.validate(PTE, { 'model.ptd': PTD });
  assert.ok(!byRecord.errors.some((f) => f.code === 'EXTERNAL_DATA_MISSING' || /missing/i.test(f.code)), 'the data is found');
  assert.deepEqual(et.validate(PTE, [PTD]), byRecord);
  const blob = await et.openBlob(new File([readFileSync(PTD)], 'model.ptd'));
  assert.deepEqual(et.validate(PTE, [blob]), byRecord);
  // Without its data: the same report either way, and not the one with it.
  assert.deepEqual(et.validate(PTE, []), et.validate(PTE, {}));
  assert.notDeepEqual(et.validate(PTE, []), byRecord);
  // Nameless bytes in an array are named by their place.
  assert.deepEqual(et.validate(PTE, [readFileSync(PTD)]), et.validate(PTE, { 'ptds[0]': readFileSync(PTD) }));
});

test('validate: findings name an array\'s files by their own names (twice the same name: #2)', () => {
  const broken = readFileSync(PTD).subarray(0, 40);
  const withFile = (name) => new File([broken], name);
  return (async () => {
    const a = await et.openBlob(withFile('model.ptd'));
    const b = await et.openBlob(withFile('model.ptd'));
    const report = et.validate(PTE, [a, b]);
    const files = new Set(report.errors.map((f) => f.file));
    assert.ok(files.has('model.ptd') && files.has('model.ptd#2'), [...files].join(', '));
  })();
});

test('repack: data as an array of paths gives the bytes of the record form; nameless bytes are refused with the fix', () => {
  const byRecord = et.repack(PTE, { data: { 'model.ptd': PTD } });
  const byArray = et.repack(PTE, { data: [PTD] });
  assert.deepEqual(Object.keys(byArray.ptd), Object.keys(byRecord.ptd));
  assert.deepEqual(bytesOf(byArray.pte), bytesOf(byRecord.pte));
  for (const tag of Object.keys(byRecord.ptd)) assert.deepEqual(bytesOf(byArray.ptd[tag]), bytesOf(byRecord.ptd[tag]));
  assert.throws(() => et.repack(PTE, { data: [readFileSync(PTD)] }), (e) => e.code === 'INVALID_ARGUMENT'
    && /options\.data\[0\] has no file name/.test(e.message) && /\{ 'model\.ptd': bytes \}/.test(e.message));
  assert.throws(() => et.repack(PTE, { data: 'model.ptd' }), (e) => e.code === 'INVALID_ARGUMENT');
});

test('diff and exportWeights: the same results from an array and a record', async () => {
  const byArray = await et.diff(PTE, PTE, { dataA: [PTD], dataB: [PTD] });
  const byRecord = await et.diff(PTE, PTE, { dataA: { 'model.ptd': PTD }, dataB: { 'model.ptd': PTD } });
  assert.equal(byArray.summary.externalDataCompared, true);
  assert.deepEqual(byArray.summary, byRecord.summary);
  const a = et.exportWeights(PTE, [PTD]);
  const r = et.exportWeights(PTE, { 'model.ptd': PTD });
  assert.deepEqual(a.tensors, r.tensors);
  assert.ok(a.tensors.length > 0);
});
