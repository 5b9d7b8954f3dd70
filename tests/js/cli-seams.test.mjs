// CLI seams (issue 25): export-weights with nothing to export refuses with a
// hint, diff shows absent values as "none" and asks only for the data that
// is missing, diff's errors go through the dispatcher (JSON document with
// --json, exit 2), and progress lines give each file's own exact bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ARTIFACTS, CONFORMANCE, NPM } from './helpers/common.mjs';
import { runCli } from './helpers/cli.mjs';

const { fmtBytes } = await import(join(NPM, 'src', 'cli', 'format.mjs'));
const tmp = mkdtempSync(join(tmpdir(), 'etpack-cli-seams-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

const LINEAR = join(ARTIFACTS, 'module_linear_no_constant_segment.pte');
const EXTCONST = join(CONFORMANCE, '11_external_constants_only');

test('export-weights of a model whose constants have no names: NOTHING_TO_EXPORT, a hint, nothing written', async () => {
  const out = join(tmp, 'unnamed.safetensors');
  const r = await runCli(['export-weights', LINEAR, '-o', out]);
  assert.equal(r.status, 1, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^executorch-pack: error \[NOTHING_TO_EXPORT\]: \S*module_linear_no_constant_segment\.pte: no tensor to export: nothing was written$/m);
  assert.match(r.stderr, /constant\(s\) have no names/);
  assert.equal(existsSync(out), false, 'no empty file left');

  const json = await runCli(['export-weights', LINEAR, '-o', out, '--json']);
  assert.equal(json.status, 1);
  const doc = JSON.parse(json.stdout);
  assert.equal(doc.ok, false);
  assert.equal(doc.error.code, 'NOTHING_TO_EXPORT');
  assert.equal(doc.error.exitStatus, 1);
  assert.match(doc.error.hint, /have no names/);
  assert.equal(existsSync(out), false);
});

test('export-weights whose --include matches nothing: the hint names the globs', async () => {
  const out = join(tmp, 'none.safetensors');
  const r = await runCli(['export-weights', join(EXTCONST, 'out.pte'), join(EXTCONST, 'model.ptd'), '-o', out, '--include', 'zz*', '--json']);
  assert.equal(r.status, 1, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.error.code, 'NOTHING_TO_EXPORT');
  assert.match(doc.error.hint, /--include 'zz\*'/);
  assert.equal(existsSync(out), false);
});

test('diff: no "undefined", and --data-X asked for only where missing', async () => {
  const pte = join(EXTCONST, 'out.pte');
  const ptd = join(EXTCONST, 'model.ptd');
  // B is A with its constants moved back in... here simply A against itself
  // with data on one side: only A's data is asked for.
  const oneSide = await runCli(['diff', pte, pte, '--data-b', ptd]);
  assert.doesNotMatch(oneSide.stdout, /undefined/);
  assert.match(oneSide.stdout, /external tensor bytes not compared \(give --data-a\)$/m);
  const both = await runCli(['diff', pte, pte, '--data-a', ptd, '--data-b', ptd]);
  assert.equal(both.status, 0, both.stderr);
  assert.doesNotMatch(both.stdout, /not compared/);
  const neither = await runCli(['diff', pte, pte]);
  assert.match(neither.stdout, /\(give --data-a and --data-b\)$/m);
  // A model without external tensors needs no data: nothing is asked for.
  const plain = await runCli(['diff', LINEAR, LINEAR]);
  assert.equal(plain.status, 0, plain.stderr);
  assert.doesNotMatch(plain.stdout, /not compared|undefined/);
});

test('diff: a layout value absent on one side reads "none" (and is null in --json)', async () => {
  // A .ptd against a .pte cannot be compared; two .pte of which one has no
  // extended header: the repack of LINEAR always writes one.
  const { default: init } = await import(join(NPM, 'index.node.mjs'));
  const et = await init();
  const withHeader = join(tmp, 'with-header.pte');
  await et.repack(LINEAR, { output: 'artifact', extractDelegateSegments: false }).pte.writeTo(withHeader);
  const headerless = [LINEAR, join(ARTIFACTS, 'add.pte'), join(ARTIFACTS, 'arduino_add.pte')]
    .find((p) => et.inspect(p, { kind: 'pte' }).header === null);
  if (!headerless) return;  // every shared artifact has a header: covered by the formatter test below
  const r = await runCli(['diff', headerless, withHeader]);
  assert.doesNotMatch(r.stdout, /undefined/);
  const json = JSON.parse((await runCli(['diff', headerless, withHeader, '--json'])).stdout);
  for (const f of json.layout) assert.ok('a' in f && 'b' in f, `${f.field} has both sides`);
});

test('formatDiff prints "none" for a value absent on one side', async () => {
  const { formatDiff } = await import(join(NPM, 'src', 'cli', 'diff.mjs'));
  const text = formatDiff('a.pte', 'b.pte', {
    kind: 'ptd', identical: false, equivalent: true,
    summary: { namedData: { added: 0, removed: 0, changed: 0 }, bytesChanged: 0, layoutChanges: 1 },
    namedData: { added: [], removed: [], changed: [] },
    layout: [{ field: 'header.length', a: 32, b: null }, { field: 'segmentAlignment', a: undefined, b: 128 }],
  });
  assert.match(text, /^ {2}header\.length: 32 -> none$/m);
  assert.match(text, /^ {2}segmentAlignment: none -> 128$/m);
  assert.doesNotMatch(text, /undefined/);
});

test('diff of an input that is no model: exit 1, the dispatcher\'s message naming it, and a JSON document with --json', async () => {
  const notModel = join(NPM, 'package.json');
  const r = await runCli(['diff', notModel, LINEAR]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^executorch-pack: error \[[A-Z_]+\]: /m);
  assert.ok(r.stderr.includes(notModel), r.stderr);
  const json = await runCli(['diff', notModel, LINEAR, '--json']);
  assert.equal(json.status, 1);
  const doc = JSON.parse(json.stdout);
  assert.equal(doc.command, 'diff');
  assert.equal(doc.ok, false);
  assert.equal(doc.error.exitStatus, 1);
  assert.equal(doc.error.file, notModel);
  assert.match(doc.error.code, /^[A-Z_]+$/);
});

test('repack progress: each line gives the file being written with its own exact size', async () => {
  const dir = join(tmp, 'progress');
  const r = await runCli(['repack', LINEAR, '--externalize', '-o', `${dir}/`], { env: { ...process.env, EXECUTORCH_PACK_PROGRESS: 'always' } });
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('writing '));
  const pte = join(dir, 'module_linear_no_constant_segment.pte');
  const ptd = join(dir, 'model.ptd');
  const [pteSize, ptdSize] = [statSync(pte).size, statSync(ptd).size];
  const total = pteSize + ptdSize;
  // The .ptd first, then the .pte: a line at 100% for each, with its own bytes.
  const last = (path) => lines.filter((l) => l.startsWith(`writing ${path}: `)).at(-1);
  assert.equal(last(ptd), `writing ${ptd}: ${fmtBytes(ptdSize)} of ${fmtBytes(ptdSize)} (100.0%), file 1 of 2, ` +
    `${fmtBytes(ptdSize)} of ${fmtBytes(total)} in all (${((100 * ptdSize) / total).toFixed(1)}%)`);
  assert.equal(last(pte), `writing ${pte}: ${fmtBytes(pteSize)} of ${fmtBytes(pteSize)} (100.0%), file 2 of 2, ${fmtBytes(total)} of ${fmtBytes(total)} in all (100.0%)`);
  assert.ok(pteSize < 2048 && ptdSize < 1024, 'small files: the .ptd line is exact to the byte');
  assert.equal(new Set(lines).size, lines.length, 'no line repeated');
});

test('export-weights shows progress of its one file', async () => {
  const out = join(tmp, 'progress.safetensors');
  const r = await runCli(['export-weights', join(EXTCONST, 'out.pte'), join(EXTCONST, 'model.ptd'), '-o', out],
    { env: { ...process.env, EXECUTORCH_PACK_PROGRESS: 'always' } });
  assert.equal(r.status, 0, r.stderr);
  const size = statSync(out).size;
  assert.match(r.stderr, new RegExp(`^writing .*progress\\.safetensors: ${fmtBytes(size)} of ${fmtBytes(size)} \\(100\\.0%\\)$`, 'm'));
});
