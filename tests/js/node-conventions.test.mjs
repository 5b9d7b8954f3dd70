// Node conventions of the API: paths wherever a file is read, disposable
// sources and stores, coded errors for deleted objects, async iteration and
// AbortSignal on the long operations that read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, CONFORMANCE, loadApi } from './helpers/common.mjs';

const PTE = join(ARTIFACTS, 'add.pte');
const DISPOSE = Symbol.dispose ?? Symbol.for('nodejs.dispose');

test('validate, inspect and deserializePteBinary take paths, as repack does', async () => {
  const et = await loadApi();
  const bytes = readFileSync(PTE);
  assert.deepEqual(et.validate(PTE), et.validate(bytes));
  assert.deepEqual(et.inspect(PTE), et.inspect(bytes));
  const fromPath = et.deserializePteBinary(PTE);
  assert.equal(et.programToJson(fromPath.program), et.programToJson(et.deserializePteBinary(bytes).program));
  assert.throws(() => et.validate(join(ARTIFACTS, 'missing.pte')), { code: 'IO_ERROR' });
  // .ptd files by path too, under any name (`__proto__` stays an ordinary key).
  const dir = join(CONFORMANCE, '13_everything');
  const names = JSON.parse(`{"__proto__": ${JSON.stringify(join(dir, 'model.ptd'))}, "b": ${JSON.stringify(join(dir, 'shard_b.ptd'))}}`);
  const byPath = et.validate(join(dir, 'out.pte'), names);
  const byBytes = et.validate(readFileSync(join(dir, 'out.pte')),
    JSON.parse('{"__proto__": 0, "b": 0}', (k, v) => (k === '' ? v : readFileSync(join(dir, k === 'b' ? 'shard_b.ptd' : 'model.ptd')))));
  assert.equal(byPath.ok, true);
  assert.deepEqual(byPath, byBytes);
});

test('a deleted store is a coded error; stores and files are disposable', async () => {
  const et = await loadApi();
  const store = new et.NamedDataStore();
  store.addNamedData('k', new Uint8Array([1, 2, 3]));
  store[DISPOSE]();
  for (const use of [() => store.addNamedData('j', new Uint8Array(1)), () => store.getNamedDataStoreOutput(),
    () => store.externalizePteData(1, 'x'), () => store.mergeNamedDataStore({ buffers: [] }),
    () => et.serializePteBinary({ program: '{}', namedData: store })]) {
    assert.throws(use, (e) => e instanceof et.EtpackError && e.code === 'OBJECT_DELETED');
  }
  store.delete();  // twice is harmless

  const file = et.openFile(PTE);
  assert.equal(et.inspect(file).format, 'pte');
  file[DISPOSE]();
  assert.throws(() => et.inspect(file), { code: 'IO_ERROR' });
});

test('an Artifact is async-iterable; chunks() and stream() stop on an aborted signal', async () => {
  const et = await loadApi();
  const bytes = readFileSync(PTE);
  const { pte } = et.repack(PTE, { output: 'artifact' });
  const parts = [];
  for await (const chunk of pte) parts.push(chunk);
  assert.ok(Buffer.concat(parts).equals(Buffer.from(et.repack(bytes).pte)));

  const controller = new AbortController();
  const reason = new Error('stop');
  controller.abort(reason);
  // Every signal option ends in EtpackError ABORTED, the reason as its cause.
  const abortedBy = { name: 'EtpackError', code: 'ABORTED', cause: reason };
  await assert.rejects(async () => { for await (const c of pte.chunks({ signal: controller.signal })) assert.fail(c); }, abortedBy);
  const reader = pte.stream({ signal: controller.signal }).getReader();
  await assert.rejects(reader.read(), abortedBy);

  // Aborted mid-way: the stream errors with ABORTED after what was read.
  const live = new AbortController();
  const stream = pte.stream({ signal: live.signal, chunkSize: 64 });
  const r = stream.getReader();
  await r.read();
  live.abort(reason);
  await assert.rejects(r.read(), abortedBy);
  assert.throws(() => pte.stream({ signal: 'yes' }), { code: 'INVALID_ARGUMENT' });
});

test('openBlob stops on an aborted signal', async () => {
  const et = await loadApi();
  const blob = new Blob([readFileSync(PTE)]);
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(et.openBlob(blob, { signal: controller.signal }), (e) => e.code === 'ABORTED' && e.cause === controller.signal.reason);
  const opened = await et.openBlob(blob, { signal: new AbortController().signal });
  assert.equal(et.validate(opened).ok, true);
  // A digest over non-model data checks the signal between reads.
  const data = new Blob([new Uint8Array(20 << 20)]);
  const late = new AbortController();
  const pending = et.openBlob(data, { signal: late.signal, digest: true });
  late.abort();
  await assert.rejects(pending, { code: 'ABORTED', message: /openBlob was aborted/ });
});
