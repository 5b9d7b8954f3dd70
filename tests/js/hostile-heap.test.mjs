// The wasm heap never shrinks by itself: after a call that left it large, or
// after a trap, the instance is replaced transparently and calls go on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadApi } from './helpers/common.mjs';
import { syntheticProgram } from './helpers/programs.mjs';

const et = await loadApi();
const pte = et.serializePteBinary({ program: syntheticProgram({ constants: [new Uint8Array(64)] }) });
const heapBytes = () => et._internal.module.HEAPU8.byteLength;

// Grows the current instance's heap as a hostile file would.
function growHeap(bytes) {
  const m = et._internal.module;
  const ptr = m._malloc(bytes);
  assert.ok(ptr !== 0);
  m._free(ptr);
  assert.ok(heapBytes() >= bytes);
}

test('after a call that left the heap large, the instance is replaced and calls go on', () => {
  const before = et._internal.module;
  growHeap(300 << 20);
  assert.equal(et.inspect(pte).format, 'pte');
  assert.notEqual(et._internal.module, before);
  assert.ok(heapBytes() <= 32 << 20, `heap back to ${heapBytes()} bytes`);
  assert.ok(et.validate(pte).ok);
});

test('a live NamedDataStore keeps its instance until it is deleted', () => {
  const store = new et.NamedDataStore();
  store.addNamedData('k', new Uint8Array([1, 2, 3]));
  const held = et._internal.module;
  growHeap(200 << 20);
  et.inspect(pte);
  assert.equal(et._internal.module, held, 'not replaced while a store lives');
  assert.deepEqual(Object.keys(store.getNamedDataStoreOutput().pteData), ['k']);
  store.delete();
  assert.notEqual(et._internal.module, held, 'replaced once the store is deleted');
  assert.ok(heapBytes() <= 32 << 20);
});

test('a trap in the core is a coded error, and the next call runs on a fresh instance', () => {
  const m = et._internal.module;
  const inspect = m.inspect;
  m.inspect = () => { throw new WebAssembly.RuntimeError('unreachable executed'); };
  try {
    assert.throws(() => et.inspect(pte), (e) => e instanceof et.EtpackError && e.code === 'INTERNAL' && /restarted/.test(e.message));
  } finally {
    m.inspect = inspect;
  }
  assert.notEqual(et._internal.module, m);
  assert.equal(et.inspect(pte).format, 'pte');
  const abortLike = et._internal.module;
  abortLike.validate = () => { throw new Error('Aborted(OOM)'); };
  assert.throws(() => et.validate(pte), { code: 'OUT_OF_MEMORY' });
  assert.ok(et.validate(pte).ok);
});

test('a store from a replaced instance says so instead of trapping', () => {
  const store = new et.NamedDataStore();
  const m = et._internal.module;
  m.inspect = () => { throw new WebAssembly.RuntimeError('unreachable'); };
  assert.throws(() => et.inspect(pte), { code: 'INTERNAL' });
  assert.throws(() => store.addNamedData('k', new Uint8Array(1)), (e) => e.code === 'INTERNAL' && /create a new one/.test(e.message));
  store.delete();
  store.delete();  // twice is harmless
  assert.throws(() => store.getNamedDataStoreOutput(), { code: 'OBJECT_DELETED' });
});
