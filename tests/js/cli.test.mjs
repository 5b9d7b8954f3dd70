// The CLI (npm/bin/executorch-pack.mjs): validate, inspect, repack, usage errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, mkdtempSync, rmSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { syntheticProgram, patternBytes } from './helpers/programs.mjs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { CONFORMANCE, ARTIFACTS, caseNames, loadCase, kindOf, loadApi } from './helpers/common.mjs';
import { all, runCli } from './helpers/cli.mjs';

const MiB = 1 << 20;

const run = (args) => runCli(args);

const tmp = mkdtempSync(join(tmpdir(), 'etpack-cli-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

const filesIn = (dir, ext) => readdirSync(dir).filter((f) => f.endsWith(ext)).sort().map((f) => join(dir, f));

test('validate: every artifact is clean (exit 0)', async () => {
  const files = filesIn(ARTIFACTS, '.pte');
  assert.ok(files.length >= 3);
  const results = await all(files.map((f) => () => run(['validate', f, '--json'])));
  results.forEach((r, i) => {
    if (onlyNoPlaceholder(r)) return; // loads only on builds with the deprecated constant_buffer path
    assert.equal(r.status, 0, `${files[i]}: ${r.stdout}${r.stderr}`);
    assert.equal(JSON.parse(r.stdout).ok, true);
  });
});

// Exit 1 whose only error is the missing constant segment placeholder
// (../shared/RUNTIME.md: the runtime's CMake build refuses such files).
function onlyNoPlaceholder(r) {
  if (r.status !== 1) return false;
  const { errors } = JSON.parse(r.stdout);
  return errors.length === 1 && errors[0].code === 'CONSTANT_SEGMENT_NO_PLACEHOLDER';
}

// 20_int64_extremes plans value 0 at memory offset 2^64-1: the runtime
// refuses it (load_method: InvalidArgument), and so do validate and repack.
const RUNTIME_REFUSES = '20_int64_extremes';
function onlyPlannedPastBuffer(r) {
  if (r.status !== 1) return false;
  const { errors } = JSON.parse(r.stdout);
  return errors.length === 1 && errors[0].code === 'PLANNED_TENSOR_PAST_BUFFER';
}

test('validate: every .pte/.ptd output in conformance is clean; external tensors resolve', async () => {
  const jobs = [];
  for (const name of caseNames()) {
    const dir = join(CONFORMANCE, name);
    // A deserialize case's .pte ships with the .ptd files of the case it came from.
    const ptdDir = name.startsWith('18_deser_pte_') ? join(CONFORMANCE, name.slice('18_deser_pte_'.length)) : dir;
    const ptds = [...filesIn(ptdDir, '.ptd')];
    for (const pte of filesIn(dir, '.pte')) jobs.push({ name, args: ['validate', pte, ...ptds, '--json'], resolved: ptds.length > 0 });
    for (const ptd of ptds) jobs.push({ name, args: ['validate', ptd, '--json'] });
  }
  assert.ok(jobs.length >= 50, `only ${jobs.length} files`);
  const results = await all(jobs.map((j) => () => run(j.args)));
  let withPtd = 0;
  results.forEach((r, i) => {
    const { name, args, resolved } = jobs[i];
    if (onlyNoPlaceholder(r)) {
      withPtd += resolved ? 1 : 0;
      return;
    }
    if (name === RUNTIME_REFUSES && args[1].endsWith('.pte')) {
      assert.ok(onlyPlannedPastBuffer(r), `${name}: ${r.stdout}`);
      return;
    }
    assert.equal(r.status, 0, `${name} ${args.join(' ')}: ${r.stdout}${r.stderr}`);
    const report = JSON.parse(r.stdout);
    assert.equal(report.ok, true);
    assert.deepEqual(report.errors, []);
    if (resolved) {
      ++withPtd;
      const unresolved = report.warnings.filter((w) => w.code === 'EXTERNAL_TENSOR_UNRESOLVED');
      assert.deepEqual(unresolved, [], `${name}: every external tensor resolves`);
    }
  });
  assert.ok(withPtd >= 5, 'several .pte files validated together with their .ptd files');
});

test('validate: human output, and exit 1 on a broken file', async () => {
  const ok = await run(['validate', join(ARTIFACTS, 'add.pte')]);
  assert.equal(ok.status, 0);
  assert.match(ok.stdout, /OK/);
  const broken = join(tmp, 'truncated.pte');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(broken, readFileSync(join(ARTIFACTS, 'add.pte')).subarray(0, 100));
  const bad = await run(['validate', broken]);
  assert.equal(bad.status, 1, bad.stdout + bad.stderr);
  assert.match(bad.stdout, /error [A-Z_]+/);
  const badJson = await run(['validate', broken, '--json']);
  assert.equal(badJson.status, 1);
  const report = JSON.parse(badJson.stdout);
  assert.equal(report.ok, false);
  assert.ok(report.errors.every((e) => typeof e.code === 'string' && e.code.length > 0));
});

test('inspect --json of arduino_add.pte: method, operators, constants, segment map covering the file once', async () => {
  const file = join(ARTIFACTS, 'arduino_add.pte');
  const size = readFileSync(file).length;
  const r = await run(['inspect', file, '--json']);
  assert.equal(r.status, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.equal(s.format, 'pte');
  assert.equal(s.fileSize, size);
  assert.equal(s.methods.length, 1);
  assert.equal(s.methods[0].name, 'forward');
  assert.ok(s.methods[0].operators.length >= 1);
  assert.ok(s.methods[0].operators.some((o) => o.name === 'aten::add'));
  assert.ok(s.constants.count >= 1);
  assert.ok(s.constants.totalBytes > 0);
  let at = 0;
  for (const range of s.segmentMap) {
    assert.equal(range.start, at, 'ranges are contiguous and ordered');
    assert.ok(range.end > range.start, 'no empty range');
    assert.equal(range.size, range.end - range.start);
    at = range.end;
  }
  assert.equal(at, size, 'the map ends at the end of the file');
  assert.ok(s.segmentMap.some((m) => m.kind === 'constant'));
  const sum = Object.values(s.bytesByCategory).reduce((a, b) => a + b, 0);
  assert.equal(sum, size);
});

test('inspect --json keeps int64 values exact', async () => {
  const r = await run(['inspect', join(CONFORMANCE, '20_int64_extremes', 'out.pte'), '--json']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout.replace(/\s+/g, ''), /"nonConstBufferSizes":\[0,1099511627793,9223372036854775807\]/);
});

test('inspect: human-readable tables', async () => {
  const r = await run(['inspect', join(ARTIFACTS, 'arduino_add.pte')]);
  assert.equal(r.status, 0, r.stderr);
  for (const heading of ['Methods (1)', 'aten::add', 'Constants', 'Size breakdown', 'Segment map', 'flatbuffer']) {
    assert.ok(r.stdout.includes(heading), `output names ${heading}`);
  }
  const ptd = await run(['inspect', join(CONFORMANCE, '13_everything', 'model.ptd')]);
  assert.equal(ptd.status, 0, ptd.stderr);
  assert.match(ptd.stdout, /Named data \(3\)/);
});

function repackArgs(config) {
  const args = [];
  if (config.extract_delegate_segments) args.push('--extract-delegate-segments');
  if (config.segment_alignment !== null) args.push('--segment-alignment', String(config.segment_alignment));
  if (config.constant_tensor_alignment !== null) args.push('--constant-tensor-alignment', String(config.constant_tensor_alignment));
  if (config.delegate_alignment !== null) args.push('--delegate-alignment', String(config.delegate_alignment));
  return args;
}

test('repack of every conformance .pte output (with its .ptd files) and its case config: byte-identical, or (a hand-made input without the constant-segment placeholder, which repack adds) a clean model', async () => {
  const jobs = [];
  for (const name of caseNames()) {
    const c = loadCase(name);
    if (kindOf(c.spec) !== 'serialize' || !c.spec.expected?.pte || name.startsWith('08b') || name === RUNTIME_REFUSES) continue;
    const out = join(tmp, name, 'repacked.pte');
    const ptds = filesIn(c.dir, '.ptd');
    jobs.push({ name, input: join(c.dir, c.spec.expected.pte), ptds, out, args: repackArgs(c.spec.config) });
  }
  assert.ok(jobs.length >= 25, `only ${jobs.length} cases`);
  const results = await all(jobs.map((j) => () => run(['repack', j.input, ...j.ptds, '-o', j.out, ...j.args])));
  const written = [];
  let identical = 0;
  results.forEach((r, i) => {
    const j = jobs[i];
    assert.equal(r.status, 0, `${j.name}: ${r.stderr}`);
    if (Buffer.compare(readFileSync(j.out), readFileSync(j.input)) === 0) ++identical;
    // The .ptd files given are carried under their own names; nothing else is written.
    const names = j.ptds.map((p) => p.slice(p.lastIndexOf('/') + 1));
    const files = readdirSync(join(tmp, j.name));
    assert.ok(files.includes('repacked.pte') && files.every((f) => f === 'repacked.pte' || names.includes(f)), `${j.name}: ${files}`);
    written.push({ j, ptds: files.filter((f) => f !== 'repacked.pte').map((f) => join(tmp, j.name, f)) });
  });
  // Upstream's emitter writes the placeholder: its files come out as they were.
  assert.ok(identical >= 15, `only ${identical} of ${jobs.length} byte-identical`);
  const checks = await all(written.map(({ j, ptds }) => () => run(['validate', j.out, ...(ptds.length ? ptds : j.ptds), '--json'])));
  checks.forEach((v, i) => {
    assert.equal(v.status, 0, `${written[i].j.name}: ${v.stdout}`);
    assert.deepEqual(JSON.parse(v.stdout).errors, []);
  });
});

test('repack of arduino_add.pte with default flags is byte-identical', async () => {
  const input = join(ARTIFACTS, 'arduino_add.pte');
  const out = join(tmp, 'arduino', 'out.pte');
  const r = await run(['repack', input, '-o', out]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /wrote/);
  assert.ok(Buffer.compare(readFileSync(out), readFileSync(input)) === 0);
});

test('repack --externalize writes <tag>.ptd next to OUT; the pair validates; --merge folds it back', async () => {
  const input = join(ARTIFACTS, 'arduino_add.pte');
  const dir = join(tmp, 'ext');
  const out = join(dir, 'model.pte');
  const r = await run(['repack', input, '-o', out, '--externalize=weights', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const summary = JSON.parse(r.stdout);
  assert.equal(summary.moved.length, 1);
  assert.ok(existsSync(join(dir, 'weights.ptd')));
  const v = await run(['validate', out, join(dir, 'weights.ptd'), '--json']);
  assert.ok(v.status === 0 || onlyNoPlaceholder(v), v.stdout); // until repack writes the placeholder (h-repack-core)
  assert.deepEqual(JSON.parse(v.stdout).warnings, []);
  const alone = JSON.parse((await run(['validate', out, '--json'])).stdout);
  assert.ok(alone.errors.some((w) => w.code === 'EXTERNAL_TENSOR_UNRESOLVED'));

  const merged = join(tmp, 'merged', 'm.pte');
  // The .ptd the .pte uses is merged rather than given as its data: its keys
  // are "missing" as inputs, by choice, and present again in the output.
  const m = await run(['repack', out, '-o', merged, '--merge', join(dir, 'weights.ptd'), '--merge-tag', 'weights', '--allow-missing-data']);
  assert.equal(m.status, 0, m.stderr);
  assert.ok(existsSync(join(tmp, 'merged', 'weights.ptd')));

  const none = join(tmp, 'pattern', 'p.pte');
  const p = await run(['repack', input, '-o', none, '--externalize-pattern', 'no.such.*', '--json']);
  assert.equal(p.status, 0, p.stderr);
  assert.equal(JSON.parse(p.stdout).moved.length, 0);
  const big = join(tmp, 'min', 'p.pte');
  const b = await run(['repack', input, '-o', big, '--externalize', '--externalize-min-bytes', '1000', '--json']);
  assert.equal(b.status, 0, b.stderr);
  assert.equal(JSON.parse(b.stdout).moved.length, 0);
});

test('repack in place: inputs are streamed from their open files while outputs replace them', async () => {
  const dir = join(tmp, 'inplace');
  mkdirSync(dir, { recursive: true });
  const pte = join(dir, 'model.pte');
  // A .pte with 3 MiB of constants, so the copy really streams.
  const et = await loadApi();
  const consts = [patternBytes(MiB, 1), patternBytes(MiB, 2), patternBytes(MiB, 3)];
  writeFileSync(pte, et.serializeForExecutorch({ program: syntheticProgram({ constants: consts }) }).pte);
  const r = await run(['repack', pte, '-o', pte, '--externalize=model', '--json']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).moved.length, 3);
  assert.deepEqual(readdirSync(dir).sort(), ['model.pte', 'model.ptd'].sort(), 'no temporary files left');
  const v = await run(['validate', pte, join(dir, 'model.ptd'), '--json']);
  assert.ok(v.status === 0 || onlyNoPlaceholder(v), v.stdout); // until repack writes the placeholder (h-repack-core)
  const data = new et.FlatTensorSerializer().deserialize(readFileSync(join(dir, 'model.ptd')));
  consts.forEach((c, i) => assert.ok(Buffer.from(c).equals(Buffer.from(data.buffers[data.namedData[`constant.${i + 1}`].bufferIndex]))));
  // Merging the data back into the same .ptd path, in place.
  const m = await run(['repack', pte, '-o', pte, '--merge', join(dir, 'model.ptd'), '--merge-tag', 'model', '--allow-missing-data']);
  assert.equal(m.status, 0, m.stderr);
  const after = await run(['validate', pte, join(dir, 'model.ptd'), '--json']);
  assert.ok(after.status === 0 || onlyNoPlaceholder(after), after.stdout); // as above
});

test('usage errors exit 2 with a message on stderr', async () => {
  const cases = [
    [],
    ['frobnicate'],
    ['inspect'],
    ['inspect', 'a', 'b'],
    ['validate'],
    ['validate', join(tmp, 'does-not-exist.pte')],
    ['inspect', join(ARTIFACTS, 'add.pte'), '--bogus'],
    ['repack', join(ARTIFACTS, 'add.pte')],
    ['repack', join(ARTIFACTS, 'add.pte'), '-o'],
    ['repack', join(ARTIFACTS, 'add.pte'), '-o', join(tmp, 'x.pte'), '--segment-alignment', 'abc'],
    ['repack', join(ARTIFACTS, 'add.pte'), '-o', join(tmp, 'x.pte'), '--segment-alignment', '0'],
  ];
  const results = await all(cases.map((args) => () => run(args)));
  results.forEach((r, i) => {
    assert.equal(r.status, 2, `${cases[i].join(' ')}: status ${r.status}`);
    assert.ok(r.stderr.length > 0, `${cases[i].join(' ')}: stderr`);
    assert.equal(r.stdout, '');
  });
  assert.match(results[1].stderr, /USAGE/);
  assert.match(results[5].stderr, /IO_ERROR/);
});

test('--help and --version', async () => {
  for (const args of [['--help'], ['inspect', '--help'], ['validate', '--help'], ['repack', '--help'], ['help', 'repack']]) {
    const r = await run(args);
    assert.equal(r.status, 0);
    assert.match(r.stdout, /Usage/);
  }
  const v = await run(['--version']);
  assert.equal(v.status, 0);
  assert.equal(v.stdout.trim(), JSON.parse(readFileSync(new URL('../../npm/package.json', import.meta.url), 'utf8')).version);
});
