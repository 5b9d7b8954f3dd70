// A heap that a call's own program accounts for outlives the call until the
// caller is idle (so calls on a big program reuse the pages it touched); a
// heap nothing accounts for is replaced at once (npm/src/instance.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { HEAP_PER_PROGRAM_BYTE, HEAP_RESET_BYTES, IDLE_RESET_MS, InstanceLifetime } from '../../npm/src/instance.mjs';
import { HeapCopies } from '../../npm/src/marshal.mjs';
import { loadApi } from './helpers/common.mjs';
import { syntheticProgram } from './helpers/programs.mjs';

const MiB = 1 << 20;

// A stand-in module whose heap is `bytes` long.
const fakeModule = (bytes) => ({ HEAPU8: { byteLength: bytes } });

function lifetimeOf(heapBytes, idleMs = 20) {
  const swaps = [];
  const lifetime = new InstanceLifetime(fakeModule(heapBytes), () => fakeModule(16 * MiB), (m) => swaps.push(m), { idleMs });
  return { lifetime, swaps };
}

test('an overgrown heap its program accounts for stays until the caller is idle', async () => {
  const { lifetime, swaps } = lifetimeOf(HEAP_RESET_BYTES + 64 * MiB);
  lifetime.guard(() => lifetime.programInHeap(8 * MiB));
  assert.equal(swaps.length, 0, 'kept right after the call');
  lifetime.guard(() => lifetime.programInHeap(8 * MiB));
  await sleep(5);
  lifetime.guard(() => lifetime.programInHeap(8 * MiB));
  assert.equal(swaps.length, 0, 'a call within the idle time keeps it');
  await sleep(60);
  assert.equal(swaps.length, 1, 'replaced once idle');
  assert.equal(lifetime.module.HEAPU8.byteLength, 16 * MiB);
});

test('an overgrown heap no program accounts for is replaced at once', () => {
  const { lifetime, swaps } = lifetimeOf(HEAP_RESET_BYTES + MiB);
  lifetime.guard(() => {});
  assert.equal(swaps.length, 1, 'a call without a program (a hostile file)');

  // A program far smaller than the heap does not account for it.
  const small = lifetimeOf(HEAP_RESET_BYTES + 64 * MiB);
  small.lifetime.guard(() => small.lifetime.programInHeap(Math.floor((64 * MiB) / HEAP_PER_PROGRAM_BYTE) - 1));
  assert.equal(small.swaps.length, 1);
});

test('a call that does not grow a kept heap leaves it waiting; one that grows it replaces it', () => {
  const { lifetime, swaps } = lifetimeOf(HEAP_RESET_BYTES + 64 * MiB, 10_000);
  lifetime.guard(() => lifetime.programInHeap(8 * MiB));
  lifetime.guard(() => {});  // a validate between two serializes
  assert.equal(swaps.length, 0);
  lifetime.guard(() => { lifetime.module.HEAPU8.byteLength += MiB; });  // grown by a call that accounts for nothing
  assert.equal(swaps.length, 1);
});

test('a live store holds an overgrown heap past the idle time; deleting it replaces the heap', async () => {
  const { lifetime, swaps } = lifetimeOf(HEAP_RESET_BYTES + 64 * MiB);
  lifetime.liveStores = 1;
  lifetime.guard(() => lifetime.programInHeap(8 * MiB));
  await sleep(60);
  assert.equal(swaps.length, 0);
  lifetime.liveStores = 0;
  lifetime.guard(() => {});  // the store's delete()
  assert.equal(swaps.length, 1);
});

test('serializing a program keeps a heap it accounts for, through calls that do not grow it, until idle', async () => {
  const et = await loadApi();
  const program = syntheticProgram({ ints: 10000, intLists: 5000, tensors: 4999, kernelCalls: 2000 });  // 2.1 MB of text
  const grow = (bytes) => {
    const m = et._internal.module;
    m._free(m._malloc(bytes));
  };
  grow(HEAP_RESET_BYTES + 8 * MiB);  // as a big program would leave it
  const held = et._internal.module;
  const { pte } = et.serializeForExecutorch({ program });
  assert.ok(et._internal.module === held, 'kept after the serialize');
  assert.ok(et.programToJson(program).length > 0);
  assert.ok(et._internal.module === held, 'kept after programToJson');
  et.inspect(pte);
  assert.ok(et._internal.module === held, 'kept after an inspect that did not grow it');
  await sleep(IDLE_RESET_MS + 200);
  assert.ok(et._internal.module !== held, 'replaced once idle');
  assert.ok(et._internal.module.HEAPU8.byteLength <= 32 * MiB);
  assert.equal(et.inspect(pte).format, 'pte');
});

test('program text and binary programs put in the heap are reported; other bytes are not', async () => {
  const et = await loadApi();
  const reported = [];
  const heap = new HeapCopies(et._internal.module, (n) => reported.push(n));
  try {
    heap.put(new Uint8Array(10));  // a file's head: accounts for nothing
    heap.putProgram(new Uint8Array(20));
    heap.putText(['{"a":', '1}']);
  } finally {
    heap.free();
  }
  assert.deepEqual(reported, [20, 7]);
});
