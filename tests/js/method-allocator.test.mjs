// The method allocator (issue 26): inspect's figures for the whole model and
// with the .ptd files a .pte is loaded with, validate's methodAllocator
// option (API and CLI: the error naming the method and the bytes missing,
// usage errors), and the runtime the figures are for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, CONFORMANCE, loadApi } from './helpers/common.mjs';
import { runCli } from './helpers/cli.mjs';

const et = await loadApi();
const ADD = join(ARTIFACTS, 'add.pte');
const EVERYTHING = join(CONFORMANCE, '13_everything');
const PTE = join(EVERYTHING, 'out.pte');
const PTDS = ['model.ptd', 'shard_b.ptd'].map((f) => join(EVERYTHING, f));

test('inspect: the pool for every method, the runtime the figures are for, no data files', () => {
  const s = et.inspect(readFileSync(ADD));
  assert.match(s.methodAllocator.runtime, /cff6f4dd/);
  assert.equal(s.methodAllocator.runtime, s.methods[0].memory.methodAllocator.runtime);
  assert.equal(s.methodAllocator.dataFiles, 0);
  assert.equal(s.methodAllocator.mergedDataMap, false);
  // One method: the pool is its figure (RUNTIME.md: add.pte 376 on x86_64, 224 on ARM 32-bit).
  assert.deepEqual(s.methodAllocator.allMethods, {
    '64-bit': { withTempAllocator: 376, withoutTempAllocator: 548 },
    arm32: { withTempAllocator: 224, withoutTempAllocator: 320 },
  });
});

test('inspect with dataFiles: a .pte with a named_data table pays a merged data map (24 bytes 64-bit, 12 arm32) per method', () => {
  const alone = et.inspect(PTE);
  const withData = et.inspect(PTE, { dataFiles: PTDS });
  assert.equal(withData.methodAllocator.dataFiles, 2);
  assert.equal(withData.methodAllocator.mergedDataMap, true);
  const a = alone.methods[0].memory.methodAllocator;
  const b = withData.methods[0].memory.methodAllocator;
  for (const which of ['withTempAllocator', 'withoutTempAllocator']) {
    assert.equal(b['64-bit'][which], a['64-bit'][which] + 24);
    assert.equal(b.arm32[which], a.arm32[which] + 12);
    assert.equal(withData.methodAllocator.allMethods['64-bit'][which], b['64-bit'][which]);
  }
  // A record names the files as well; one .ptd costs what two do (Module merges several on the heap).
  assert.deepEqual(et.inspect(PTE, { dataFiles: { 'model.ptd': readFileSync(PTDS[0]) } }).methods[0].memory.methodAllocator, b);
  // Without a named_data table the runtime uses the .ptd's map as it is.
  const plain = join(CONFORMANCE, '11_external_constants_only');
  const p = et.inspect(join(plain, 'out.pte'), { dataFiles: [join(plain, 'model.ptd')] });
  assert.equal(p.methodAllocator.mergedDataMap, false);
  assert.deepEqual(p.methods[0].memory.methodAllocator, et.inspect(join(plain, 'out.pte')).methods[0].memory.methodAllocator);
  // Measured on the runtime loading it with its .ptd (device.test.mjs): 1808 / 2382 on x86_64, no merged map.
  const repacked = et.repack(join(plain, 'out.pte'), { data: { 'model.ptd': join(plain, 'model.ptd') } });
  const measured = et.inspect(repacked.pte, { dataFiles: { 'model.ptd': join(plain, 'model.ptd') } });
  assert.equal(measured.methodAllocator.mergedDataMap, false);
  assert.deepEqual(measured.methods[0].memory.methodAllocator['64-bit'], { withTempAllocator: 1808, withoutTempAllocator: 2382 });
});

test('inspect dataFiles: refuses a file that is not a .ptd, and data files for a .ptd', () => {
  assert.throws(() => et.inspect(PTE, { dataFiles: [ADD] }), (e) => e.code === 'INVALID_ARGUMENT' && /not a \.ptd/.test(e.message));
  assert.throws(() => et.inspect(PTDS[0], { dataFiles: [PTDS[1]] }), (e) => e.code === 'INVALID_ARGUMENT' && /this file is a \.ptd/.test(e.message));
  assert.throws(() => et.inspect(PTE, { dataFiles: 'model.ptd' }), (e) => e.code === 'INVALID_ARGUMENT');
});

test('validate methodAllocator: the measured minimum fits, a byte less names the method and the bytes missing', () => {
  const add = readFileSync(ADD);
  assert.equal(et.validate(add, [], { methodAllocator: { bytes: 376 } }).ok, true);
  assert.equal(et.validate(add, [], { methodAllocator: { bytes: 548n, arch: '64-bit', tempAllocator: false } }).ok, true);
  assert.equal(et.validate(add, [], { methodAllocator: { bytes: 224, arch: 'arm32' } }).ok, true);
  const r = et.validate(add, [], { methodAllocator: { bytes: 375 } });
  assert.equal(r.ok, false);
  assert.equal(r.errors.length, 1);
  const [f] = r.errors;
  assert.equal(f.code, 'METHOD_ALLOCATOR_TOO_SMALL');
  assert.equal(f.path, 'execution_plan[0]');
  assert.match(f.message, /load_method\('forward'\).*needs 376 bytes of the method allocator on 64-bit with a temp allocator, 1 more than the 375 given/);
  const arm = et.validate(add, [], { methodAllocator: { bytes: 319n, arch: 'arm32', tempAllocator: false } });
  assert.match(arm.errors[0].message, /needs 320 bytes of the method allocator on arm32 without a temp allocator, 1 more/);
  // Far beyond 2^53 as a BigInt: fits.
  assert.equal(et.validate(add, [], { methodAllocator: { bytes: 2n ** 63n } }).ok, true);
});

test('validate methodAllocator: the .ptd files given count', () => {
  const need = et.inspect(PTE, { dataFiles: PTDS }).methods[0].memory.methodAllocator['64-bit'].withTempAllocator;
  const codes = (r) => r.errors.map((e) => e.code).filter((c) => c === 'METHOD_ALLOCATOR_TOO_SMALL');
  assert.deepEqual(codes(et.validate(PTE, PTDS, { methodAllocator: { bytes: need } })), []);
  const short = et.validate(PTE, PTDS, { methodAllocator: { bytes: need - 1 } });
  assert.deepEqual(codes(short), ['METHOD_ALLOCATOR_TOO_SMALL']);
  assert.match(short.errors.find((e) => e.code === 'METHOD_ALLOCATOR_TOO_SMALL').message, /and the \.ptd files given, 1 more than/);
});

test('validate methodAllocator: bad values are INVALID_ARGUMENT naming the field', () => {
  const add = readFileSync(ADD);
  const bad = [
    [{ bytes: -1 }, /bytes must be a non-negative integer/], [{ bytes: 1.5 }, /bytes must be/], [{ bytes: '12' }, /bytes must be/],
    [{ bytes: -1n }, /bytes must be/], [{}, /bytes must be/], [{ bytes: 2n ** 64n }, /bytes must be/],
    [{ bytes: 10, arch: 'x86' }, /arch must be "64-bit" or "arm32"/], [{ bytes: 10, tempAllocator: 'no' }, /tempAllocator must be a boolean/],
    [{ bytes: 10, size: 3 }, /has no option "size"/], [10, /must be an object/],
  ];
  for (const [pool, message] of bad) {
    assert.throws(() => et.validate(add, [], { methodAllocator: pool }), (e) => e.code === 'INVALID_ARGUMENT' && message.test(e.message), JSON.stringify(pool, (k, v) => (typeof v === 'bigint' ? `${v}n` : v)));
  }
});

test('CLI validate --method-allocator: exit 1 with the finding, 0 when it fits, 2 for a bad value', async () => {
  const small = await runCli(['validate', ADD, '--method-allocator', '375']);
  assert.equal(small.status, 1, small.stderr);
  assert.match(small.stdout, /METHOD_ALLOCATOR_TOO_SMALL.*needs 376 bytes.*1 more than the 375 given/);
  const fits = await runCli(['validate', ADD, '--method-allocator', '320', '--arch', 'arm32', '--no-temp-allocator']);
  assert.equal(fits.status, 0, fits.stdout + fits.stderr);
  const json = await runCli(['validate', ADD, '--method-allocator', '547', '--no-temp-allocator', '--json']);
  assert.equal(json.status, 1);
  const report = JSON.parse(json.stdout);
  assert.equal(report.command, 'validate');
  assert.deepEqual(report.errors.map((e) => e.code), ['METHOD_ALLOCATOR_TOO_SMALL']);
  for (const args of [['--method-allocator', 'lots'], ['--method-allocator', '-5'], ['--method-allocator', '99999999999999999999999'],
    ['--method-allocator', '64', '--arch', 'x86'], ['--arch', 'arm32'], ['--no-temp-allocator']]) {
    const r = await runCli(['validate', ADD, ...args, '--json']);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    const doc = JSON.parse(r.stdout);
    assert.equal(doc.error.code, 'USAGE', args.join(' '));
    assert.equal(doc.error.exitStatus, 2);
  }
});

test('CLI inspect PTE PTD...: the figures count the data files, the human output gives the model total', async () => {
  const [json, human, alone] = await Promise.all([
    runCli(['inspect', PTE, ...PTDS, '--json']), runCli(['inspect', PTE, ...PTDS]), runCli(['inspect', ADD])]);
  assert.equal(json.status, 0, json.stderr);
  const doc = JSON.parse(json.stdout);
  assert.equal(doc.methodAllocator.dataFiles, 2);
  assert.deepEqual(doc.methods[0].memory.methodAllocator, et.inspect(PTE, { dataFiles: PTDS }).methods[0].memory.methodAllocator);
  assert.equal(human.status, 0, human.stderr);
  assert.match(human.stdout, /Method allocator for every method in one pool with 2 \.ptd file\(s\) \(a merged data map per method\): 64-bit \d+ bytes/);
  assert.match(alone.stdout, /Method allocator for every method in one pool: 64-bit 376 bytes \(548 without a temp allocator\), arm32 224 bytes \(320 without a temp allocator\) \(ExecuTorch at cff6f4dd/);
  // A .pte where a .ptd goes: an invalid input (exit 1), the file named.
  const notPtd = await runCli(['inspect', PTE, ADD]);
  assert.equal(notPtd.status, 1, notPtd.stdout);
  assert.match(notPtd.stderr, /INVALID_ARGUMENT|not a \.ptd/);
  assert.ok(notPtd.stderr.includes(ADD), notPtd.stderr);
});
