// The CLI's `validate` fast path (src/cli/validate-fast.mjs over
// dist/etpack-validate.wasm) against the full path (the library over
// etpack.wasm): the same results and the same printed text and JSON for
// every file of the shared corpora and the fuzz regressions, alone and as
// models; it declines (and the full CLI runs) whatever it does not do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from '../../scripts/gen-package.mjs';
import { ARTIFACTS, CLI, CONFORMANCE, NPM, ROOT, SHARED, loadApi } from './helpers/common.mjs';

generate();  // before the sources load: they import npm/src/generated/
const { fastEt, fastPlan } = await import('../../npm/src/cli/validate-fast.mjs');
const { groupModels, runStatus, validateAll } = await import('../../npm/src/cli/validate-run.mjs');
const { json, text } = await import('../../npm/src/cli/validate-formats.mjs');
const BUNDLE = join(NPM, 'dist/cli/executorch-pack.mjs');
const WASM = join(NPM, 'dist/etpack-validate.wasm');
const OPEN = { headers: undefined, env: {}, timeout: undefined };

const filesUnder = (dir) => (existsSync(dir) ? readdirSync(dir, { recursive: true, withFileTypes: true })
  .filter((d) => d.isFile()).map((d) => join(d.parentPath ?? d.path, d.name)).sort() : []);

const scratch = mkdtempSync(join(tmpdir(), 'etpack-fast-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
const add = readFileSync(join(ARTIFACTS, 'add.pte'));
const corrupt = (name, bytes) => {
  writeFileSync(join(scratch, name), bytes);
  return join(scratch, name);
};
const wrongMagic = Buffer.from(add);
wrongMagic.write('XX', 4, 'latin1');
const CORRUPT = [
  corrupt('truncated.pte', add.subarray(0, add.length >> 1)),
  corrupt('head-only.pte', add.subarray(0, 24)),
  corrupt('wrong-magic.pte', wrongMagic),
  corrupt('empty.pte', Buffer.alloc(0)),
];
mkdirSync(join(scratch, 'folder.pte'));
const everything = join(CONFORMANCE, '13_everything');
const MODELS = [
  // every file alone, then each conformance case as one command line
  ...[CONFORMANCE, join(SHARED, 'conformance-bpte'), ARTIFACTS, join(ROOT, 'tests/fuzz/regressions')].flatMap(filesUnder).map((f) => [f]),
  ...readdirSync(CONFORMANCE, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).map((c) => filesUnder(join(CONFORMANCE, c)).filter((f) => /\.(pte|ptd)$/.test(f))).filter((l) => l.length > 1)
    .map((l) => [...l.filter((f) => f.endsWith('.pte')), ...l.filter((f) => f.endsWith('.ptd'))]),
  ...CORRUPT.map((f) => [f]),
  [join(ARTIFACTS, 'add.pte'), join(everything, 'model.ptd')],  // a .ptd after another model's .pte
  [join(everything, 'model.ptd'), join(everything, 'out.pte'), join(everything, 'shard_b.ptd')],
  [join(ARTIFACTS, 'add.pte'), ...CORRUPT],
  [join(scratch, 'missing.pte')],
  [join(scratch, 'folder.pte')],
];

test('fast and full paths: the same results, text and JSON, for every file of the corpora', async () => {
  const full = await loadApi();
  const fast = fastEt(await WebAssembly.compile(readFileSync(WASM)));
  let taken = 0;
  for (const files of MODELS) {
    const models = groupModels(files);
    const a = await validateAll(fast, models, { open: OPEN, target: {} }, 1);
    const b = await validateAll(full, models, { open: OPEN, target: {} }, 1);
    const what = files.join(' ');
    if (b.some((r) => r.error)) {
      // The fast path declines these: the full CLI says the error.
      assert.ok(a.some((r) => r.error), `${what}: the fast path must decline`);
      continue;
    }
    assert.ok(!a.some((r) => r.error), `${what}: declined (${a.map((r) => r.error?.code).join()})`);
    ++taken;
    assert.equal(text(a), text(b), what);
    assert.equal(json(a), json(b), what);
    assert.equal(runStatus(a), runStatus(b), what);
  }
  assert.ok(taken > 100, `${taken} command lines taken by the fast path`);
});

test('what the fast path declines: URLs, --jobs, target options, --help, usage errors', () => {
  const pte = join(ARTIFACTS, 'add.pte');
  assert.deepEqual(fastPlan(['validate', pte]), { format: 'text', files: [pte] });
  assert.deepEqual(fastPlan(['validate', '--json', pte]), { format: 'json', files: [pte] });
  assert.deepEqual(fastPlan(['validate', '--format', 'sarif', pte, pte]), { format: 'sarif', files: [pte, pte] });
  for (const argv of [['validate'], ['validate', 'https://example.com/a.pte'], ['validate', '--jobs', '2', pte], ['validate', '--runtime', '1.0', pte],
    ['validate', '--backends', 'XnnpackBackend', pte], ['validate', '--method-allocator', '100', pte], ['validate', '--help', pte],
    ['validate', '--deprecated-constant-buffer', pte], ['validate', '--format', 'xml', pte], ['validate', '--json', '--format', 'text', pte],
    ['validate', '--nope', pte], ['validate', '--header', 'A: b', pte], ['inspect', pte], ['--version']]) {
    assert.equal(fastPlan(argv), null, argv.join(' '));
  }
});

// The published launcher (fast path first) and the sources (full path), as
// processes: stdout, stderr and status byte for byte; `fast` says which
// command lines the fast path must take (it did not read cli-bundle.js).
const SPY = (bundle, args) => `process.argv.splice(1, Infinity, 'cli', ...${JSON.stringify(args)});
const fs = (await import('node:module')).createRequire(import.meta.url)('node:fs');
const read = fs.readFileSync;
fs.readFileSync = (p, ...rest) => { if (String(p).endsWith('cli-bundle.js')) process.env.ETPACK_TEST_FULL = '1'; return read(p, ...rest); };
process.on('exit', () => process.stderr.write(process.env.ETPACK_TEST_FULL ? '\\n#full' : '\\n#fast'));
await import(${JSON.stringify(bundle)});`;
test('the published CLI: byte-identical output on either path, and the fast path taken where it should be', () => {
  const pte = join(ARTIFACTS, 'add.pte');
  const model = [join(everything, 'out.pte'), join(everything, 'model.ptd'), join(everything, 'shard_b.ptd')];
  const cases = [
    [['validate', pte], 'fast'], [['validate', '--json', pte], 'fast'], [['validate', '--format', 'sarif', ...model, pte], 'fast'],
    [['validate', '--format=github', CORRUPT[0]], 'fast'], [['validate', '--json', CORRUPT[2], pte], 'fast'],
    [['validate', join(scratch, 'missing.pte')], 'full'], [['validate', '--json', join(scratch, 'folder.pte')], 'full'],
    [['validate', pte, join(scratch, 'missing.pte')], 'full'], [['validate', '--jobs', '2', pte], 'full'], [['validate', '--runtime', '0.4', pte], 'full'],
    [['validate', join(SHARED, 'etdump/add_r1/add_r1.etdp')], 'full'],
  ];
  for (const [args, path] of cases) {
    const a = spawnSync(process.execPath, ['--input-type=module', '-e', SPY(BUNDLE, args)], { encoding: 'utf8' });
    const b = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
    const what = args.join(' ');
    const tag = a.stderr.slice(a.stderr.lastIndexOf('\n#') + 2);
    assert.equal(tag, path, `${what}: ${a.stderr}`);
    assert.equal(a.status, b.status, what);
    assert.equal(a.stdout, b.stdout, what);
    assert.equal(a.stderr.slice(0, a.stderr.lastIndexOf('\n#')), b.stderr, what);
  }
});
