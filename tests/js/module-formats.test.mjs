// The package is ESM only, and says so: `engines` asks for Node 20.19, the
// first 20.x where require() of an ES module works unflagged, so CommonJS
// code can `require('executorch-pack')` (the module namespace: `.default`
// is init). And the types resolve for ESM consumers under every resolution
// attw checks for that profile (`--profile esm-only`; the `etpack.wasm`
// subpath is an asset for `locateFile`/bundlers, not a module).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { ARTIFACTS, NPM, ROOT } from './helpers/common.mjs';

const pkg = JSON.parse(readFileSync(join(NPM, 'package.json'), 'utf8'));

test('ESM only: engines name the first Node with require(esm), and require() works there', { timeout: 60_000 }, (t) => {
  assert.equal(pkg.type, 'module');
  assert.equal(pkg.engines.node, '>=20.19');
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major === 20 && minor < 19) return t.skip(`Node ${process.versions.node} has no require(esm)`);
  const dir = mkdtempSync(join(tmpdir(), 'etpack-cjs-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(NPM, join(dir, 'node_modules/executorch-pack'), 'dir');
  writeFileSync(join(dir, 'main.cjs'), `const { default: init, ScalarType, EtpackError } = require('executorch-pack');
const inline = require('executorch-pack/inline');
(async () => {
  const et = await init();
  const report = et.validate(process.argv[2]);
  const viaInline = await inline.default();
  console.log(JSON.stringify({ ok: report.ok, float: ScalarType.FLOAT, error: typeof EtpackError, inline: viaInline.version }));
})();
`);
  const out = execFileSync(process.execPath, ['main.cjs', join(ARTIFACTS, 'add.pte')], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  assert.deepEqual(JSON.parse(out), { ok: true, float: 6, error: 'function', inline: pkg.version });
});

test('attw --profile esm-only finds no problem in the packed package', { timeout: 180_000 }, () => {
  const r = spawnSync(join(ROOT, 'node_modules/.bin/attw'),
    ['--pack', NPM, '--profile', 'esm-only', '--exclude-entrypoints', './etpack.wasm', '--format', 'json'],
    { encoding: 'utf8', timeout: 170_000, env: { ...process.env, npm_config_update_notifier: 'false' } });
  const json = JSON.parse(r.stdout.slice(r.stdout.indexOf('{')));
  const problems = (json.problems ?? json.analysis?.problems ?? []);
  assert.equal(r.status, 0, `attw failed: ${JSON.stringify(problems, null, 1).slice(0, 2000)}\n${r.stderr}`);
});
