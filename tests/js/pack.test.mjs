// `npm pack` of npm/ installs into an empty folder and works with
// `import init from 'executorch-pack'`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, readdirSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { NPM, CONFORMANCE, ROOT } from './helpers/common.mjs';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const quiet = { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000,
  env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' } };

test('npm pack -> npm install <tarball> -> import init from "executorch-pack"', { timeout: 300_000 }, () => {
  const work = mkdtempSync(join(tmpdir(), 'etpack-pack-'));
  try {
    const packDir = join(work, 'tarball');
    const app = join(work, 'app');
    execFileSync('mkdir', ['-p', packDir, app]);
    // The workspace's `npm run pack` (scripts/pack.mjs) runs check-dist.mjs
    // first: it refuses a missing or stale build; stderr says so.
    const packing = spawnSync(process.execPath, [join(ROOT, 'scripts/pack.mjs'), '--json', '--pack-destination', packDir], { ...quiet });
    assert.equal(packing.status, 0, packing.stderr);
    assert.match(packing.stderr, /check-dist: npm\/dist is current/);
    const packOut = packing.stdout;
    const packed = JSON.parse(packOut.slice(packOut.search(/^\[/m)));
    // The published package.json runs nothing that reaches outside the package.
    const published = JSON.parse(readFileSync(join(NPM, 'package.json'), 'utf8'));
    for (const [name, script] of Object.entries(published.scripts ?? {})) assert.doesNotMatch(script, /\.\.[\\/]/, `scripts.${name}`);
    const tarball = join(packDir, packed[0].filename);
    assert.ok(existsSync(tarball));
    const files = packed[0].files.map((f) => f.path);
    for (const f of ['package.json', 'index.node.mjs', 'index.browser.mjs', 'index.d.ts', 'dist/etpack.mjs', 'dist/etpack.wasm', 'dist/etpack-validate.wasm', 'dist/cli/validate-fast.js', 'bin/executorch-pack.mjs', 'src/api.mjs',
      'README.md', 'LICENSE', 'examples/build-model.mjs', 'index.inline.mjs', 'dist/etpack-wasm.inline.mjs', 'index.node.d.ts', 'types/program.d.ts', 'types/codes.d.ts',
      'src/generated/file-kinds.mjs', 'src/generated/scalar-types.mjs', 'src/generated/schema-enums.mjs', 'src/generated/stream-tags.mjs']) {
      assert.ok(files.includes(f), `tarball holds ${f}`);
    }
    assert.ok(!files.some((f) => f.startsWith('test')), 'no tests in the tarball');

    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    execFileSync(npm, ['install', '--offline', '--no-audit', '--no-fund', tarball], { ...quiet, cwd: app });
    assert.ok(existsSync(join(app, 'node_modules', 'executorch-pack', 'dist', 'etpack.wasm')));

    const dir = join(CONFORMANCE, '13_everything');
    writeFileSync(join(app, 'main.mjs'), `import init from 'executorch-pack';
import { readFileSync } from 'node:fs';
const dir = ${JSON.stringify(dir)}, rd = (f) => readFileSync(dir + '/' + f), c = JSON.parse(rd('case.json'));
const et = await init(), s = c.named_data_store;
const { pte, ptd } = et.serializeForExecutorch({ program: rd(c.program).toString(), mutableData: c.mutable_data.map(rd),
  externalConstantMap: c.external_constant_map, externalConstantBuffer: c.external_constant_buffer.map(rd) },
  { segmentAlignment: 128 }, undefined, { buffers: s.buffers.map(rd), pteData: s.pte_data, externalData: s.external_data });
const same = (a, f) => Buffer.compare(Buffer.from(a), rd(f)) === 0;
console.log(JSON.stringify({ version: et.version, pte: same(pte, c.expected.pte),
  ptd: Object.entries(c.expected.ptd).every(([t, f]) => same(ptd[t], f)) }));
`);
    const result = JSON.parse(execFileSync(process.execPath, ['main.mjs'], { ...quiet, cwd: app }));
    const version = JSON.parse(readFileSync(join(NPM, 'package.json'), 'utf8')).version;
    assert.deepEqual(result, { version, pte: true, ptd: true });

    // The installed CLI works too.
    const bin = join(app, 'node_modules', '.bin', 'executorch-pack');
    assert.ok(existsSync(bin), 'the bin link is installed');
    const out = execFileSync(bin, ['validate', join(dir, 'out.pte'), join(dir, 'model.ptd'), join(dir, 'shard_b.ptd')], { ...quiet, cwd: app });
    assert.match(out, /OK/);
    assert.ok(readdirSync(packDir).length === 1);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
