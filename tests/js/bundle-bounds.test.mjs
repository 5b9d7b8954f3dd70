// Bundles under hostile safetensors (issue 38): every count a name or the
// metadata claims is checked against the values that back it before
// anything is made (time and memory bounded), names are parsed strictly
// (canonical indices, one value per name across files, metadata never over
// a tensor), metadata values read strictly; and unbundle then bundle gives
// back every .bpte we read byte for byte, or unbundle refuses, saying why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { SHARED, loadApi } from './helpers/common.mjs';
import { runCli } from './helpers/cli.mjs';
import { scalarValue } from '../../npm/src/bundle-cases.mjs';
import { float32, safetensorsBytes } from './helpers/safetensors.mjs';

const BPTE = process.env.ETPACK_BPTE_CONFORMANCE_DIR ?? join(SHARED, 'conformance-bpte');
const et = await loadApi();
const tmp = mkdtempSync(join(tmpdir(), 'etpack-bundle-bounds-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

const scalar = (name) => ({ name, dtype: 'F32', shape: [], bytes: float32([1]) });
const file = (names, metadata = null) => safetensorsBytes(names.map(scalar), { metadata });

async function refused(files, pattern, { names, code = 'INVALID_INPUT' } = {}) {
  await assert.rejects(et.testCasesFromSafetensors(files, names ? { names } : {}), (e) => {
    assert.ok(e instanceof et.EtpackError, String(e));
    assert.equal(e.code, code, e.message);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

test('claimed counts are checked before anything is made: 30,000,000 cases in a few bytes', async () => {
  const before = process.memoryUsage().rss;
  const t0 = performance.now();
  // Metadata claiming 30M cases; a name claiming case 30M; both in < 300 bytes.
  const claims = file(['forward.0.input.0'], { 'bundle.suites': '[["forward", 30000000]]' });
  assert.ok(claims.byteLength < 300);
  await refused([claims], /30000000 \(29999999 of them with no value\).*backed only by the header/);
  await refused([file(['forward.30000000.input.0'])], /"forward" number 30000001/);
  // 4294967295 is no index (it would be an array property, not an element).
  await refused([file(['forward.4294967295.input.0'])], /"4294967295" is not a canonical decimal index/);
  await refused([file(['forward.0.input.4294967295'])], /"4294967295" is not a canonical decimal index/);
  // A value index far past the others: a gap, named.
  await refused([file(['forward.0.input.30000000'])], /"forward\.0\.input\.0" is missing/);
  // Many suites: each listed suite is backed by its own text.
  await refused([file([], { 'bundle.suites': JSON.stringify([['a', 1e6]]) })], /with no value/);
  assert.ok(performance.now() - t0 < 2000, `${performance.now() - t0} ms`);
  assert.ok(process.memoryUsage().rss - before < 64 << 20, 'no allocation for the claimed counts');
});

test('cases without values: as many as the headers back, in bundle.suites', async () => {
  const cases = await et.testCasesFromSafetensors([file(['f.2.input.0'], { 'bundle.suites': '[["f", 4], ["g", 0]]' })]);
  assert.deepEqual(cases.method_test_suites.map((s) => [s.method_name, s.test_cases.length]), [['f', 4], ['g', 0]]);
  assert.deepEqual(cases.method_test_suites[0].test_cases.map((c) => c.inputs.length), [0, 0, 1, 0]);
  await refused([file(['f.4.input.0'], { 'bundle.suites': '[["f", 4]]' })], /"f\.4\.input\.0" is beyond the 4 case\(s\) metadata bundle\.suites gives "f"/);
  await refused([file([], { 'bundle.suites': '[["f", 1], ["f", 2]]' })], /bundle\.suites names method "f" twice/);
});

test('names parsed strictly: canonical indices, one value per name across all files', async () => {
  await refused([file(['forward.0.input.0', 'forward.00.input.0'])], /"forward\.00\.input\.0" is no value name: "00" is not a canonical/);
  await refused([file(['forward.0.input.0', 'forward.0.input.00'])], /"forward\.0\.input\.00".*"00"/);
  await refused([file(['forward.01.output.0'])], /"01"/);
  await refused([file(['forward.0.input.0']), file(['forward.0.input.0'])], /"forward\.0\.input\.0" is given twice \(tensor in "a\.st", tensor in "b\.st"\)/,
    { names: ['a.st', 'b.st'] });
  await refused([file([], { 'f.0.input.1': 'Int 1' }), file([], { 'f.0.input.1': 'Int 2' })], /"f\.0\.input\.1" is given twice \(metadata of "a\.st", metadata of "b\.st"\)/,
    { names: ['a.st', 'b.st'] });
  // Metadata over a tensor's name, in the same file or another.
  await refused([file(['f.0.input.0'], { 'f.0.input.0': 'Int 1' })], /"f\.0\.input\.0" is given twice \(tensor in "a\.st", metadata of "a\.st"\)/, { names: ['a.st'] });
  await refused([file(['f.0.input.0']), file([], { 'f.0.input.0': 'Int 1' })], /given twice \(tensor in "a\.st", metadata of "b\.st"\)/, { names: ['a.st', 'b.st'] });
  await refused([file([], { 'bundle.version': '1' }), file([], { 'bundle.version': '1' })], /"bundle\.version" is given twice/);
  await refused([file([], { 'bundle.sutes': '[]' })], /"bundle\.sutes" is none of bundle\.version, bundle\.suites/);
  await refused([file(['weights.linear'])], /tensor "weights\.linear" is not named METHOD\.CASE\.input\.I/);
  // Other metadata (a writer's own) is not ours.
  const ok = await et.testCasesFromSafetensors([file(['f.0.input.0'], { format: 'pt' })]);
  assert.equal(ok.method_test_suites[0].test_cases[0].inputs.length, 1);
});

test('suite "" is a suite (".0.input.0"); dots in method names', async () => {
  const cases = await et.testCasesFromSafetensors([file(['.0.input.0', 'a.b.0.output.0'])]);
  assert.deepEqual(cases.method_test_suites.map((s) => s.method_name), ['', 'a.b']);
});

test('metadata values read strictly', async () => {
  const value = async (text) => (await et.testCasesFromSafetensors([file([], { 'f.0.input.0': text })])).method_test_suites[0].test_cases[0].inputs[0];
  assert.deepEqual(await value('None'), { val_type: null, val: null });
  assert.deepEqual(await value('Double 1.5e-3'), { val_type: 'Double', val: { double_val: 0.0015 } });
  assert.ok(Object.is((await value('Double -0')).val.double_val, -0));
  assert.ok(Number.isNaN((await value('Double NaN')).val.double_val));
  assert.equal((await value('Double -Infinity')).val.double_val, -Infinity);
  assert.equal((await value('Int -9223372036854775808')).val.int_val, -(2n ** 63n));
  for (const [text, pattern] of [['None of these', /None takes no value/], ['Double 0x10', /"0x10" is not a number/],
    ['Double  1', /" 1" is not a number/], ['Double 1e999', /not a number/], ['Double nan', /not a number/],
    ['Int 007', /"007" is not an integer/], ['Int -0', /not an integer/], ['Int 1.0', /not an integer/],
    ['Int 9223372036854775808', /does not fit int64/], ['Bool True', /not true or false/], ['Tensor', /none of/]]) {
    await refused([file([], { 'f.0.input.0': text })], pattern);
  }
  await refused([file(['f.0.input.0'], { 'f.0.input.1.dim_order': '[0]' })], /"f\.0\.input\.1\.dim_order" is for no tensor value \(no value has that name\)/);
  await refused([file([], { 'f.0.input.0': 'Int 1', 'f.0.input.0.dim_order': '[]' })], /is for no tensor value \(that value is metadata\)/);
  await refused([file(['f.0.input.0'], { 'f.0.input.0.dim_order': '[0.5]' })], /not a JSON list of integers/);
  await refused([file([], { 'bundle.version': '007' })], /bundle\.version "007"/);
});

// Every .bpte we read: unbundle, then bundle, gives the same bytes (or
// unbundle refuses with a reason and writes nothing).
test('unbundle then bundle gives back every conformance .bpte byte for byte', async () => {
  const folders = readdirSync(BPTE).filter((d) => !d.startsWith('e') && existsSync(join(BPTE, d, 'out.bpte')));
  assert.ok(folders.length >= 20, BPTE);
  const files = folders.flatMap((d) => ['out.bpte', 'out_legacy_flatc.bpte'].filter((f) => existsSync(join(BPTE, d, f))).map((f) => [d, f]));
  for (const [d, f] of files) {
    const input = join(BPTE, d, f);
    const out = join(tmp, `${d}-${f}`);
    const un = await runCli(['unbundle', input, '-o', out]);
    assert.equal(un.status, 0, `${d}/${f}: ${un.stderr}`);
    const again = join(out, 'again.bpte');
    const bundled = await runCli(['bundle', join(out, 'program.pte'), join(out, 'cases.safetensors'), '-o', again]);
    assert.equal(bundled.status, 0, `${d}/${f}: ${bundled.stderr}`);
    // The legacy flatc field order is read, and written as today's serializer does.
    const expected = join(BPTE, d, 'out.bpte');
    assert.ok(readFileSync(again).equals(readFileSync(expected)), `${d}/${f}: bundle(unbundle(x)) differs`);
  }
});

// A bundle whose first Double input is a NaN with `bits` (patched in: the
// serializer writes the quiet NaN), and one with short tensor data.
function bundleWith(value, extra = []) {
  const program = new Uint8Array(readFileSync(join(BPTE, 'v01_add_one_case', 'program.pte')));
  return et.serializeBundledProgram({
    version: 0, program,
    method_test_suites: [{ method_name: 'forward', test_cases: [{ inputs: [value, ...extra], expected_outputs: [] }] }],
  });
}

test('NaN doubles: every NaN round-trips unbundle -> bundle byte for byte, its sign and payload kept', async () => {
  const quiet = bundleWith({ val_type: 'Double', val: { double_val: NaN } });
  const dir = join(tmp, 'nan');
  const un = await runCli(['unbundle', writeTemp('quiet.bpte', quiet), '-o', dir]);
  assert.equal(un.status, 0, un.stderr);
  const again = join(dir, 'again.bpte');
  assert.equal((await runCli(['bundle', join(dir, 'program.pte'), join(dir, 'cases.safetensors'), '-o', again])).status, 0);
  assert.deepEqual(new Uint8Array(readFileSync(again)), quiet);
  // 0x7ff8000000000001, -NaN (0xfff8000000000000) and a signalling NaN in place of the quiet NaN's bytes.
  for (const [bits, last] of [['0x7ff8000000000001', [1, 0, 0, 0, 0, 0, 0xf8, 0x7f]], ['0xfff8000000000000', [0, 0, 0, 0, 0, 0, 0xf8, 0xff]],
    ['0xfff0000000000abc', [0xbc, 0x0a, 0, 0, 0, 0, 0xf0, 0xff]]]) {
    const patched = new Uint8Array(quiet);
    const at = Buffer.from(patched).indexOf(Buffer.from([0, 0, 0, 0, 0, 0, 0xf8, 0x7f]));
    assert.ok(at > 0);
    patched.set(last, at);
    assert.equal(et.inspect(patched).methodTestSuites[0].testCases[0].inputs[0].bits, bits);
    const outDir = join(tmp, `nan-${bits}`);
    const r = await runCli(['unbundle', writeTemp(`${bits}.bpte`, patched), '-o', outDir]);
    assert.equal(r.status, 0, r.stderr);
    const back = join(outDir, 'again.bpte');
    const b = await runCli(['bundle', join(outDir, 'program.pte'), join(outDir, 'cases.safetensors'), '-o', back]);
    assert.equal(b.status, 0, b.stderr);
    assert.deepEqual(new Uint8Array(readFileSync(back)), patched, `${bits}: bundle(unbundle(x)) differs`);
    assert.ok(readFileSync(join(outDir, 'cases.safetensors')).includes(`Double NaN ${bits}`), 'written as "Double NaN 0x<bits>"');
  }
  // The spelling is strict: the quiet NaN's bits, or bits of no NaN, are refused.
  for (const text of ['NaN 0x7ff8000000000000', 'NaN 0x3ff0000000000000', 'NaN 0x7FF8000000000001']) {
    assert.throws(() => scalarValue(`Double ${text}`, 'f.0.input.0'), /is not/);
  }
});

test('unbundle refuses tensor data that is not exactly its sizes (bundle would refuse it)', async () => {
  const short = bundleWith({ val_type: 'Tensor', val: { scalar_type: 6, sizes: [2], dim_order: [0], data: new Uint8Array(4) } });
  const dir = join(tmp, 'short');
  const r = await runCli(['unbundle', writeTemp('short.bpte', short), '-o', dir]);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /forward\.0\.input\.0: its data is 4 byte\(s\) but scalar type 6 and sizes \[2\] make 8/);
  assert.ok(!existsSync(join(dir, 'cases.safetensors')));
  // A dim order shorter than the rank is kept (written as metadata), not made contiguous.
  const odd = bundleWith({ val_type: 'Tensor', val: { scalar_type: 6, sizes: [2], dim_order: [], data: new Uint8Array(8) } });
  const oddDir = join(tmp, 'odd');
  assert.equal((await runCli(['unbundle', writeTemp('odd.bpte', odd), '-o', oddDir])).status, 0);
  const again = join(oddDir, 'again.bpte');
  assert.equal((await runCli(['bundle', join(oddDir, 'program.pte'), join(oddDir, 'cases.safetensors'), '-o', again])).status, 0);
  assert.deepEqual(new Uint8Array(readFileSync(again)), odd);
});

function writeTemp(name, bytes) {
  const path = join(tmp, name);
  writeFileSync(path, bytes);
  return path;
}
