// Blobs/Files as the types say: the asynchronous operations (diff,
// ptdFromWeights, pteWithWeights) open a Blob given as a .pte/.ptd
// themselves; the synchronous ones refuse a raw Blob with BLOB_NOT_OPENED
// (their types take an OpenedBlob) and take it once opened.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, loadApi } from './helpers/common.mjs';

const ADD = readFileSync(join(ARTIFACTS, 'add.pte'));

test('diff opens Blob and File models (and their data files) itself', async () => {
  const et = await loadApi();
  const d = await et.diff(new Blob([ADD]), new File([ADD], 'add.pte'));
  assert.equal(d.equivalent, true);
  assert.equal(d.identical, true);
  const repacked = et.repack(ADD, { segmentAlignment: 4096 });
  const d2 = await et.diff(ADD, new Blob([repacked.pte]), { dataA: [], dataB: {} });
  assert.equal(d2.equivalent, true);
  assert.equal(d2.identical, false);
});

test('a Blob that is not a model is refused by what the file is, not by BLOB_NOT_OPENED', async () => {
  const et = await loadApi();
  await assert.rejects(et.diff(new Blob([new Uint8Array(64)]), ADD), (e) => e.code === 'MALFORMED_FILE');
});

test('synchronous calls: a raw Blob is BLOB_NOT_OPENED, an opened one works', async () => {
  const et = await loadApi();
  const blob = new Blob([ADD]);
  assert.throws(() => et.validate(blob), (e) => e.code === 'BLOB_NOT_OPENED' && /openBlob/.test(e.message));
  assert.equal(et.validate(await et.openBlob(blob)).ok, true);
});

test('a NamedDataStore add that fails on an unopened Blob leaves the store as it was', async () => {
  const et = await loadApi();
  const store = new et.NamedDataStore();
  try {
    // Two unopened Blobs of one size: the second add needs digests, which a
    // raw Blob cannot give synchronously.
    store.addNamedData('a', new Blob([new Uint8Array(16).fill(1)]));
    assert.throws(() => store.addNamedData('b', new Blob([new Uint8Array(16).fill(2)])), (e) => e.code === 'BLOB_NOT_OPENED');
    const out = store.getNamedDataStoreOutput();
    assert.deepEqual(Object.keys(out.pteData), ['a']);
    assert.equal(out.buffers.length, 1);
    // The store still works; 'b' was not kept and can be added (a size with no peer needs no digest).
    store.addNamedData('b', new Uint8Array(8));
    assert.deepEqual(Object.keys(store.getNamedDataStoreOutput().pteData), ['a', 'b']);
  } finally {
    store.delete();
  }
});
