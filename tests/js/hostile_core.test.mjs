// Core behaviour on hostile and unusual inputs, through the JS API:
// programToJson writes upstream's _program_to_json text exactly (every
// upstream-written program.json in ../shared/conformance round-trips byte
// for byte), and a flatbuffer DAG is refused with RESOURCE_LIMIT.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFORMANCE, loadApi } from './helpers/common.mjs';
import { dagPte } from './helpers/hostile_files.mjs';

const et = await loadApi();

test('programToJson(text) === text for every conformance program.json', () => {
  let checked = 0;
  for (const name of readdirSync(CONFORMANCE)) {
    const path = join(CONFORMANCE, name, 'program.json');
    if (!existsSync(path)) continue;
    const text = readFileSync(path, 'utf8');
    assert.equal(et.programToJson(text), text, `${name}/program.json`);
    checked++;
  }
  assert.ok(checked >= 38, `only ${checked} program.json files found`);
});

test('"nan" is not a double; upstream\'s "inf" strings and bare tokens are', () => {
  const plan = (val) => `{"version": 0, "execution_plan": [{"name": "f", "values": [{"val": {"double_val": ${val}}, "val_type": "Double"}]}]}`;
  assert.throws(() => et.programToJson(plan('"nan"')), (e) => e.code === 'SCHEMA_MISMATCH' && /double_val/.test(e.message));
  for (const token of ['NaN', '-0.0', '"inf"', '"-inf"']) {
    assert.match(et.programToJson(plan(token)), new RegExp(`"double_val": ${token.replace(/[.-]/g, '\\$&')}}`), token);
  }
});

test('a flatbuffer DAG is refused with RESOURCE_LIMIT naming the offset', () => {
  const dag = dagPte(1000, 100_000);  // 10^8 tables claimed by 400 KB
  for (const fn of [() => et.deserializePteBinary(dag), () => et.inspect(dag)]) {
    assert.throws(fn, (e) => e.code === 'RESOURCE_LIMIT' && /at byte offset \d+/.test(e.message));
  }
  const report = et.validate(dag);
  assert.equal(report.ok, false);
  assert.ok(report.errors.some((f) => f.code === 'FLATBUFFER_LIMIT_EXCEEDED'));
});
