// The published CLI (npm/dist/cli/, built by scripts/build-cli.mjs through
// gen-package.mjs): the same answers as the sources it is bundled from,
// --jobs's worker included, and `--version` without the library.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from '../../scripts/gen-package.mjs';
import { CLI, NPM, CONFORMANCE } from './helpers/common.mjs';

generate();
const BUNDLE = join(NPM, 'dist/cli/executorch-pack.mjs');
const run = (cli, args) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });

test('package.json bin names the bundle, and it exists', () => {
  const pkg = JSON.parse(readFileSync(join(NPM, 'package.json'), 'utf8'));
  assert.equal(pkg.bin['executorch-pack'], './dist/cli/executorch-pack.mjs');
  assert.ok(existsSync(BUNDLE));
  assert.match(readFileSync(BUNDLE, 'utf8'), /^#!\/usr\/bin\/env node\n/);
});

test('bundle and sources agree: --version, validate (with --jobs 2), a usage error', () => {
  const dir = join(CONFORMANCE, '13_everything');
  const model = [join(dir, 'out.pte'), join(dir, 'model.ptd'), join(dir, 'shard_b.ptd')];
  for (const args of [['--version'], ['validate', ...model], ['validate', '--jobs', '2', '--json', ...model, '--', ...model], ['nope']]) {
    const a = run(BUNDLE, args), b = run(CLI, args);
    assert.equal(a.status, b.status, `${args.join(' ')}: ${a.stderr}`);
    assert.equal(a.stdout, b.stdout, args.join(' '));
    assert.equal(a.stderr, b.stderr, args.join(' '));
  }
});

test('--version loads neither the library nor node:crypto', () => {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e',
    `process.argv.splice(1, Infinity, 'cli', '--version'); await import(${JSON.stringify(BUNDLE)}); process.stderr.write(JSON.stringify(process.moduleLoadList));`], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const loaded = JSON.parse(r.stderr);
  assert.ok(!loaded.includes('NativeModule crypto'), 'node:crypto not loaded');
  assert.ok(!loaded.includes('NativeModule worker_threads'), 'node:worker_threads not loaded');
});

test('the bundled script comes with a V8 code cache this Node takes, and running the CLI writes none', async () => {
  const { Script } = await import('node:vm');
  const dir = join(NPM, 'dist/cli');
  const filename = join(dir, 'cli-bundle.js');
  const cache = readFileSync(join(dir, 'cli-bundle.cache'));
  assert.ok(cache.length > 0);
  assert.equal(new Script(readFileSync(filename, 'utf8'), { filename, cachedData: cache }).cachedDataRejected, false);
  const before = readdirSync(dir).sort();
  const r = run(BUNDLE, ['validate', join(CONFORMANCE, '13_everything', 'out.pte'), join(CONFORMANCE, '13_everything', 'model.ptd'), join(CONFORMANCE, '13_everything', 'shard_b.ptd')]);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(readdirSync(dir).sort(), before);
  assert.ok(readFileSync(join(dir, 'cli-bundle.cache')).equals(cache));
});
