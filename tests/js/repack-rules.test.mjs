// repack (issue 10): whole-model inputs, refusals with their details, and
// outputs that validate clean — through the JS API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadApi, loadCase, CONFORMANCE, ARTIFACTS } from './helpers/common.mjs';

const et = await loadApi();
const c13 = loadCase('13_everything');
const c13Data = () => ({ 'model.ptd': c13.file('model.ptd'), 'shard_b.ptd': c13.file('shard_b.ptd') });

function refusal(fn, code) {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof et.EtpackError, `an EtpackError, got ${e}`);
    assert.equal(e.code, code, e.message);
    return e;
  }
  assert.fail(`expected ${code}`);
}

test('EXTERNAL tensors without their .ptd: MISSING_EXTERNAL_DATA lists the keys', () => {
  const e = refusal(() => et.repack(c13.file('out.pte')), 'MISSING_EXTERNAL_DATA');
  assert.deepEqual(e.keys, ['lin.weight', 'lin.bias']);
  assert.match(e.message, /'lin\.weight', 'lin\.bias'/);
  // One of the two files is not enough.
  const partial = refusal(() => et.repack(c13.file('out.pte'), { data: { 'shard_b.ptd': c13.file('shard_b.ptd') } }),
    'MISSING_EXTERNAL_DATA');
  assert.ok(partial.keys.length >= 1);
});

test('allowMissingData keeps the references, as before', () => {
  const r = et.repack(c13.file('out.pte'), { allowMissingData: true });
  assert.deepEqual(r.missingKeys, ['lin.weight', 'lin.bias']);
  assert.deepEqual(r.ptd, {});
  // Only the references left unresolved on purpose are findings (errors:
  // load_method fails without the .ptd that provides them).
  const report = et.validate(r.pte);
  assert.deepEqual(report.errors.map((f) => f.code), ['EXTERNAL_TENSOR_UNRESOLVED', 'EXTERNAL_TENSOR_UNRESOLVED']);
});

test('the data files are carried under their tags and keep resolving', () => {
  const r = et.repack(c13.file('out.pte'), { data: c13Data(), extractDelegateSegments: true });
  assert.deepEqual(Object.keys(r.ptd).sort(), ['model', 'shard_b']);
  assert.ok(r.carriedEntries > 0);
  assert.deepEqual(r.missingKeys, []);
  const report = et.validate(r.pte, { 'model.ptd': r.ptd.model, 'shard_b.ptd': r.ptd.shard_b });
  assert.deepEqual(report.errors, []);
  // Paths work as data sources in Node.
  const byPath = et.repack(join(c13.dir, 'out.pte'), {
    data: { 'model.ptd': join(c13.dir, 'model.ptd'), 'shard_b.ptd': join(c13.dir, 'shard_b.ptd') },
    extractDelegateSegments: true,
  });
  assert.deepEqual(Buffer.compare(Buffer.from(byPath.pte), Buffer.from(r.pte)), 0);
});

test('an input that does not validate is refused with its findings', () => {
  const bad = new Uint8Array(loadCase('02_constants_default').file('out.pte'));
  assert.equal(String.fromCharCode(...bad.subarray(8, 12)), 'eh00');
  bad[8] = 0x78;
  const e = refusal(() => et.repack(bad), 'INVALID_INPUT');
  assert.ok(Array.isArray(e.findings) && e.findings.length > 0);
  for (const f of e.findings) assert.equal(typeof f.code, 'string');
  assert.ok(e.message.includes(e.findings[0].code), e.message);
  // A broken .ptd given as data is an input too.
  const ptd = new Uint8Array(c13.file('model.ptd'));
  ptd[8] = 0x78;  // FH01 magic
  const d = refusal(() => et.repack(c13.file('out.pte'), { data: { 'model.ptd': ptd, 'shard_b.ptd': c13.file('shard_b.ptd') } }),
    'INVALID_INPUT');
  assert.ok(d.findings.some((f) => f.file === 'model.ptd'), JSON.stringify(d.findings));
});

test('options are checked', () => {
  refusal(() => et.repack(c13.file('out.pte'), { data: 'model.ptd' }), 'INVALID_ARGUMENT');  // an array or a record
  refusal(() => et.repack(c13.file('out.pte'), { data: [c13.file('model.ptd')] }), 'INVALID_ARGUMENT');  // nameless bytes in an array
  refusal(() => et.repack(c13.file('out.pte'), { allowMissingData: 'yes' }), 'INVALID_ARGUMENT');
});

test('externalize keeps the placeholder; an input without one gets it; outputs validate clean', () => {
  const all = et.repack(join(ARTIFACTS, 'arduino_add.pte'), { externalize: true });
  assert.deepEqual(et.validate(all.pte, { 'model.ptd': all.ptd.model }).errors, []);
  const old = et.repack(join(ARTIFACTS, 'module_linear_no_constant_segment.pte'));
  assert.deepEqual(et.validate(old.pte).errors, []);
});

test('every conformance .pte with its .ptd files, externalized, validates clean', () => {
  let count = 0;
  for (const name of readdirSync(CONFORMANCE).sort()) {
    const dir = join(CONFORMANCE, name);
    if (!existsSync(join(dir, 'out.pte'))) continue;
    const data = {};
    for (const f of readdirSync(dir).filter((f) => f.endsWith('.ptd'))) data[f] = join(dir, f);
    if (name === '20_int64_extremes') {  // planned at offset 2^64-1: the runtime refuses it, so repack does
      assert.throws(() => et.repack(join(dir, 'out.pte'), { data, externalize: true }), { code: 'INVALID_INPUT' });
      ++count;
      continue;
    }
    const r = et.repack(join(dir, 'out.pte'), { data, externalize: true, extractDelegateSegments: true });
    const ptds = Object.fromEntries(Object.entries(r.ptd).map(([tag, bytes]) => [`${tag}.ptd`, bytes]));
    const report = et.validate(r.pte, ptds);
    assert.deepEqual(report.errors, [], name);
    ++count;
  }
  assert.ok(count >= 30, `${count} vectors`);
});
