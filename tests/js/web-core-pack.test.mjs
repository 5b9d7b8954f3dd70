// web/core-pack.mjs: what the pages' workers send as text (arrays cut into
// chunks parsed one per task) comes back equal to what was packed: bigints,
// NaN, ±Infinity, -0, undefined and strings that start with NUL included;
// arrays past CHUNK items nested in chunks; a value with bytes goes as it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CHUNK, isPacked, packResult, unpackResult } from '../../web/core-pack.mjs';

const roundTrip = async (value) => {
  const { packed, transfer } = packResult(value);
  assert.ok(isPacked(packed));
  return unpackResult(structuredClone(packed, { transfer }));
};

test('a graph-sized value: arrays past CHUNK items are cut, rebuilt in order, exactly', async () => {
  const nodes = Array.from({ length: 2 * CHUNK + 5 }, (_, i) => ({
    id: `n${i}`, label: i % 3 ? `\u0000name ${i}` : 'x', offset: BigInt(i) ** 5n,
    args: i === 7 ? Array.from({ length: CHUNK + 1 }, (_, k) => k) : [i],
  }));
  const rows = Array.from({ length: CHUNK + 2 }, (_, i) => (i === CHUNK ? Array.from({ length: CHUNK + 3 }, (_, k) => `${k}`) : [i]));
  const value = { methods: [{ nodes, rows }], top: 2n ** 70n, text: '\u0000', empty: [] };
  const { transfer } = packResult(value);
  assert.ok(transfer.length > 4, 'one buffer per chunk, handed over');
  assert.deepEqual(await roundTrip(value), value);
});

test('numbers JSON cannot hold, undefined and holes come back as they were', async () => {
  const odd = { n: NaN, i: -Infinity, p: Infinity, z: -0, u: undefined, list: [undefined, NaN, -0] };
  const back = await roundTrip(odd);
  assert.ok(Object.hasOwn(back, 'u') && back.u === undefined);
  assert.ok(Object.is(back.z, -0) && Object.is(back.list[2], -0));
  assert.deepEqual(back, odd);
  const long = Array.from({ length: CHUNK * 2 + 1 }, (_, i) => (i % 400 === 0 ? undefined : i));
  assert.deepEqual(await roundTrip({ long }), { long });
});

test('a value holding bytes is not packed (structured clone keeps them)', () => {
  const value = { bytes: new Uint8Array([1, 2]) };
  const { packed, transfer } = packResult(value);
  assert.equal(packed, value);
  assert.deepEqual(transfer, []);
  assert.equal(isPacked(packed), false);
});

test('keys and values from a file cannot pose as the parts marker', async () => {
  // Once an object whose only key was "\0chunks" was taken for an array
  // sent in parts (and replaced by that part, or by []).
  const long = Array.from({ length: CHUNK + 1 }, (_, i) => ({ '\u0000chunks': i, '\u0000c0': `\u0000c${i}` }));
  const value = { a: { '\u0000chunks': 0 }, b: '\u0000c0', c: { '\u0000c0': 1 }, long };
  assert.deepEqual(await roundTrip(value), value);
});
