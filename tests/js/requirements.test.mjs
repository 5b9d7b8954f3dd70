// What a file needs to run (inspect's requirements) and validate as the
// runtime's judge, through the API and the CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { ARTIFACTS, CLI, CONFORMANCE, loadApi } from './helpers/common.mjs';

const et = await loadApi();
const tmp = mkdtempSync(join(tmpdir(), 'etpack-requirements-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

const c13 = (f) => join(CONFORMANCE, '13_everything', f);
const ptds13 = () => ({ 'model.ptd': readFileSync(c13('model.ptd')), 'shard_b.ptd': readFileSync(c13('shard_b.ptd')) });

function run(args) {
  return new Promise((resolvePromise) => {
    execFile(process.execPath, [CLI, ...args], (error, stdout, stderr) => {
      resolvePromise({ status: error ? error.code : 0, stdout, stderr });
    });
  });
}

test('inspect --json of 13_everything lists its backends, kernels, .ptd keys and release', async () => {
  const r = await run(['inspect', c13('out.pte'), '--json']);
  assert.equal(r.status, 0, r.stderr);
  const { schema, command, ok, ...s } = JSON.parse(r.stdout);
  assert.deepEqual([schema, command, ok], [1, 'inspect', true]);
  assert.deepEqual(s, JSON.parse(JSON.stringify(et.inspect(readFileSync(c13('out.pte'))))), 'same object as et.inspect');
  const req = s.requirements;
  assert.deepEqual(req.backends, ['XnnpackBackend', 'QnnBackend']);
  assert.deepEqual(req.operators, ['aten::add.out', 'aten::clone.out', 'aten::mul.out', 'aten::copy_']);
  assert.deepEqual(req.unusedOperators, [], 'every operator is called by a KernelCall');
  assert.deepEqual(req.externalData.map((e) => e.key), ['lin.weight', 'lin.bias']);
  assert.deepEqual(req.externalData[0], { key: 'lin.weight', dtype: 'Float', shape: [3, 3], bytes: 36, methods: ['forward'] });
  assert.match(req.minRuntimeVersion, /^\d+\.\d+$/);
  assert.ok(req.features.every((f) => typeof f.feature === 'string' && /^\d+\.\d+$/.test(f.since)));
  const { methodAllocator, ...planned } = s.methods[0].memory;  // methodAllocator: tests/js/device.test.mjs
  assert.deepEqual(planned, { plannedBuffers: [0, 176], plannedTotal: 176 });
  assert.ok(methodAllocator['64-bit'].withTempAllocator > 0);
  assert.deepEqual(s.methods[0].delegates[0].compileSpecValues,
    [{ key: 'num_threads', bytes: 4, value: 4 }, { key: 'name', bytes: 14, value: 'XnnpackBackend' }]);
  assert.ok(Array.isArray(s.constants.largest));
});

test('inspect prints the requirements, memory plan, compile specs and largest constants', async () => {
  const r = await run(['inspect', c13('out.pte')]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /Needs ExecuTorch >= \d+\.\d+ · backends: XnnpackBackend, QnnBackend · 4 kernel\(s\) · 2 \.ptd key\(s\)/);
  assert.match(r.stdout, /memory plan: 176 B in 2 buffer\(s\)/);
  assert.match(r.stdout, /compile specs of delegate 0: num_threads=4, name=XnnpackBackend/);
  assert.match(r.stdout, /largest constants/);
});

test('validate exits 1 on a file without the placeholder and on a cut delegate segment', async () => {
  const linear = await run(['validate', join(ARTIFACTS, 'module_linear_no_constant_segment.pte'), '--json']);
  assert.equal(linear.status, 1);
  const report = JSON.parse(linear.stdout);
  assert.deepEqual(report.errors.map((e) => e.code), ['CONSTANT_SEGMENT_NO_PLACEHOLDER']);
  assert.match(report.errors[0].message, /InvalidProgram/);
  const buck = await run(['validate', join(ARTIFACTS, 'module_linear_no_constant_segment.pte'), '--deprecated-constant-buffer']);
  assert.equal(buck.status, 0, buck.stdout);

  // 06: one extracted delegate segment; its recorded size made 16 bytes smaller.
  const file = readFileSync(join(CONFORMANCE, '06_delegates_extracted_dedup', 'out.pte'));
  const size = BigInt(et.inspect(file).segments[0].size);
  const programSize = Number(et.inspect(file).header.programSize);
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const hits = [];
  for (let i = 0; i + 8 <= programSize; ++i) if (view.getBigUint64(i, true) === size) hits.push(i);
  assert.equal(hits.length, 1);
  view.setBigUint64(hits[0], size - 16n, true);
  const cut = join(tmp, 'cut.pte');
  writeFileSync(cut, file);
  const r = await run(['validate', cut]);
  assert.equal(r.status, 1, r.stdout);
  assert.match(r.stdout, /error PADDING_AFTER_SEGMENT_NOT_ZERO/);
});

test('validate --runtime and --backends judge against a target', async () => {
  const args = ['validate', c13('out.pte'), c13('model.ptd'), c13('shard_b.ptd'), '--json'];
  assert.equal((await run(args)).status, 0);
  const old = await run([...args, '--runtime', '0.5']);
  assert.equal(old.status, 1);
  assert.ok(JSON.parse(old.stdout).errors.every((e) => e.code === 'FEATURE_TOO_NEW'));
  const one = await run([...args, '--backends', 'XnnpackBackend']);
  assert.equal(one.status, 1);
  assert.deepEqual(JSON.parse(one.stdout).errors.map((e) => e.code), ['BACKEND_NOT_LISTED']);
  assert.equal((await run([...args, '--backends', 'XnnpackBackend,QnnBackend', '--runtime', '1.4'])).status, 0);
  const bad = await run([...args, '--runtime', 'latest']);
  assert.equal(bad.status, 2);
});

test('et.validate options: runtime, backends, deprecatedConstantBuffer; bad options are coded errors', () => {
  const pte = readFileSync(c13('out.pte'));
  assert.equal(et.validate(pte, ptds13(), { runtime: '1.4', backends: ['XnnpackBackend', 'QnnBackend'] }).ok, true);
  assert.equal(et.validate(pte, ptds13(), { runtime: '0.6' }).errors.length, 2); // a .ptd (0.7), several (1.0)
  assert.equal(et.validate(pte, ptds13(), { backends: [] }).errors.length, 2);
  const linear = readFileSync(join(ARTIFACTS, 'module_linear_no_constant_segment.pte'));
  const lenient = et.validate(linear, {}, { deprecatedConstantBuffer: true });
  assert.equal(lenient.ok, true);
  assert.deepEqual(lenient.warnings.map((w) => w.code), ['CONSTANT_SEGMENT_NO_PLACEHOLDER']);
  for (const options of [{ runtime: 'x' }, { runtime: 1 }, { backends: 'XnnpackBackend' }, { backends: [1] }, { deprecatedConstantBuffer: 'yes' }]) {
    assert.throws(() => et.validate(pte, {}, options), (e) => e.code === 'INVALID_ARGUMENT', JSON.stringify(options));
  }
});
