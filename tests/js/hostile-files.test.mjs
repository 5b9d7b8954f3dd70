// The crafted hostile files (tests/fuzz/regressions, built by
// tests/fuzz/hostile_seeds.h) and big valid files through the JS API: a
// coded refusal or a result, never an uncoded error or a stack overflow;
// the wasm heap back to its normal size afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, loadApi } from './helpers/common.mjs';

const et = await loadApi();
const DIR = join(ROOT, 'tests', 'fuzz', 'regressions');
const HEAP_NORMAL = 128 << 20;

function coded(fn) {
  try {
    return { ok: fn() };
  } catch (e) {
    assert.ok(e instanceof et.EtpackError, `uncoded ${e?.constructor?.name}: ${e?.message}`);
    return { code: e.code };
  }
}

for (const name of readdirSync(DIR).filter((f) => /\.(pte|ptd)$/.test(f)).sort()) {
  test(`${name}: validate, inspect, deserialize and repack end coded, heap back to normal`, () => {
    const bytes = new Uint8Array(readFileSync(join(DIR, name)));
    const outcomes = {
      validate: coded(() => et.validate(bytes)),
      inspect: coded(() => et.inspect(bytes)),
      deserialize: coded(() => (name.endsWith('.ptd') ? new et.FlatTensorSerializer().deserialize(bytes) : et.deserializePteBinary(bytes))),
      repack: name.endsWith('.pte') ? coded(() => et.repack(bytes)) : { skipped: true },
    };
    assert.ok(et._internal.module.HEAPU8.byteLength <= HEAP_NORMAL, `heap ${et._internal.module.HEAPU8.byteLength}`);
    for (const [call, o] of Object.entries(outcomes)) assert.ok(o.ok !== undefined || o.code || o.skipped, `${call}: ${JSON.stringify(o)}`);
  });
}

test('hostile_doubles.pte: NaN, ±Infinity and -0 read back exactly', () => {
  const { program } = et.deserializePteBinary(new Uint8Array(readFileSync(join(DIR, 'hostile_doubles.pte'))));
  const doubles = [];
  for (const v of program.execution_plan.flatMap((p) => p.values)) {
    if (v.val_type === 'Double') doubles.push(v.val.double_val);
    if (v.val_type === 'DoubleList') doubles.push(...v.val.items);
  }
  assert.ok(doubles.some(Number.isNaN), 'a NaN');
  assert.ok(doubles.some((d) => Object.is(d, -0)), 'a -0');
  assert.ok(doubles.some((d) => d === Infinity || d === 'inf'), 'an Infinity');
});
