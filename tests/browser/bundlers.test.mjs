// The packed package (`npm pack` of npm/) in a small app built by Vite,
// webpack, Parcel, esbuild (ES module and its default IIFE format, loaded by a
// classic <script>) and Rollup, each run in Chromium validating a real .pte;
// and an esbuild bundle for Node. Vite, webpack and Parcel need no configuration;
// esbuild and Rollup need the one line the README documents (copy
// etpack.wasm next to the bundle), or the executorch-pack/inline entry (no
// configuration, also from a classic script).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';
import { chromium } from 'playwright-core';
import { ARTIFACTS, NPM, ROOT } from '../js/helpers/common.mjs';

const PTE = join(ARTIFACTS, 'add.pte');
const BIN = join(ROOT, 'node_modules/.bin');
const quiet = { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000,
  env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', NO_COLOR: '1' } };
let work, app, context;

// The app: validates /add.pte and reports through window.__result.
const APP = (specifier) => `import init from '${specifier}';
async function main() {
  const et = await init();
  const bytes = new Uint8Array(await (await fetch('/add.pte')).arrayBuffer());
  const report = et.validate(bytes);
  const summary = et.inspect(bytes);
  return { version: et.version, ok: report.ok, errors: report.errors.length, operators: summary.methods[0].operators.map((o) => o.name) };
}
main().then((r) => { window.__result = r; }, (e) => { window.__result = { error: String(e && e.code) + ': ' + String(e && e.message) }; });
`;

before(() => {
  work = mkdtempSync(join(tmpdir(), 'etpack-bundlers-'));
  const pack = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', work], { ...quiet, cwd: NPM }).replace(/^[^[]*/s, ''));
  app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', join(work, pack[0].filename)], { ...quiet, cwd: app });
});

after(async () => {
  await context?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm' };

// Serves `dir` (and /add.pte) on 127.0.0.1; returns [base URL, close].
async function serve(dir) {
  const server = createServer(async (req, res) => {
    const path = req.url.split('?')[0];
    const file = path === '/add.pte' ? PTE : normalize(join(dir, path === '/' ? 'index.html' : path));
    if (file !== PTE && !file.startsWith(dir + sep)) return res.writeHead(403).end();
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return [`http://127.0.0.1:${server.address().port}`, () => server.close()];
}

async function runInChromium(dir, page = '/') {
  context ??= await chromium.launchPersistentContext(join(work, 'profile'), {
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  const [base, close] = await serve(dir);
  const tab = await context.newPage();
  try {
    await tab.goto(base + page);
    await tab.waitForFunction(() => window.__result, null, { timeout: 30_000 });
    return await tab.evaluate(() => window.__result);
  } finally {
    await tab.close();
    close();
  }
}

const EXPECTED = { version: JSON.parse(readFileSync(join(NPM, 'package.json'), 'utf8')).version, ok: true, errors: 0, operators: ['aten::add'] };
const html = (script, { classic = false } = {}) => `<!doctype html><html lang="en"><head><title>app</title></head><body><script${classic ? '' : ' type="module"'} src="${script}"></script></body></html>`;

test('Vite, no configuration', { timeout: 120_000 }, async () => {
  const dir = join(app, 'vite');
  mkdirSync(dir);
  writeFileSync(join(dir, 'index.html'), html('/main.js'));
  writeFileSync(join(dir, 'main.js'), APP('executorch-pack'));
  execFileSync(join(BIN, 'vite'), ['build', '--logLevel', 'warn'], { ...quiet, cwd: dir });
  assert.deepEqual(await runInChromium(join(dir, 'dist')), EXPECTED);
});

test('webpack, no configuration', { timeout: 120_000 }, async () => {
  const dir = join(app, 'webpack');
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'src/index.js'), APP('executorch-pack'));
  execFileSync(join(BIN, 'webpack'), ['--mode', 'production'], { ...quiet, cwd: dir });
  writeFileSync(join(dir, 'dist/index.html'), html('/main.js'));
  assert.deepEqual(await runInChromium(join(dir, 'dist')), EXPECTED);
});

test('esbuild: the main entry with etpack.wasm copied beside the bundle, and the inline entry as it is', { timeout: 120_000 }, async () => {
  const dir = join(app, 'esbuild');
  mkdirSync(join(dir, 'dist'), { recursive: true });
  writeFileSync(join(dir, 'main.js'), APP('executorch-pack'));
  writeFileSync(join(dir, 'inline.js'), APP('executorch-pack/inline'));
  execFileSync(join(BIN, 'esbuild'), ['main.js', 'inline.js', '--bundle', '--format=esm', '--outdir=dist', '--log-level=warning'], { ...quiet, cwd: dir });
  // Without the wasm beside it: a coded error, and init() can be retried.
  writeFileSync(join(dir, 'dist/index.html'), html('/main.js'));
  const missing = await runInChromium(join(dir, 'dist'));
  assert.match(missing.error, /^WASM_LOAD_FAILED: /);
  // The documented line: cp node_modules/executorch-pack/dist/etpack.wasm <outdir>/
  copyFileSync(join(app, 'node_modules/executorch-pack/dist/etpack.wasm'), join(dir, 'dist/etpack.wasm'));
  assert.deepEqual(await runInChromium(join(dir, 'dist')), EXPECTED);
  rmSync(join(dir, 'dist/etpack.wasm'));
  writeFileSync(join(dir, 'dist/inline.html'), html('/inline.js'));
  assert.deepEqual(await runInChromium(join(dir, 'dist'), '/inline.html'), EXPECTED);
});

test('esbuild with its default format (IIFE) in classic scripts: the main entry with etpack.wasm beside it, the inline entry as it is', { timeout: 120_000 }, async () => {
  const dir = join(app, 'esbuild-iife');
  mkdirSync(join(dir, 'dist'), { recursive: true });
  writeFileSync(join(dir, 'main.js'), APP('executorch-pack'));
  writeFileSync(join(dir, 'inline.js'), APP('executorch-pack/inline'));
  // No --format: an IIFE, where `import.meta` is empty (esbuild warns about it).
  execFileSync(join(BIN, 'esbuild'), ['main.js', 'inline.js', '--bundle', '--outdir=dist', '--log-level=error'], { ...quiet, cwd: dir });
  assert.doesNotMatch(readFileSync(join(dir, 'dist/main.js'), 'utf8'), /^\s*(import|export)\b/m, 'a classic script');
  writeFileSync(join(dir, 'dist/index.html'), html('/main.js', { classic: true }));
  writeFileSync(join(dir, 'dist/inline.html'), html('/inline.js', { classic: true }));
  // The inline entry needs nothing beside it.
  assert.deepEqual(await runInChromium(join(dir, 'dist'), '/inline.html'), EXPECTED);
  // The main entry looks for etpack.wasm beside the script: a coded error
  // naming the file without it, the model validated with it.
  const missing = await runInChromium(join(dir, 'dist'));
  assert.match(missing.error, /^WASM_LOAD_FAILED: /);
  copyFileSync(join(app, 'node_modules/executorch-pack/dist/etpack.wasm'), join(dir, 'dist/etpack.wasm'));
  assert.deepEqual(await runInChromium(join(dir, 'dist')), EXPECTED);
});

test('Rollup with @rollup/plugin-node-resolve: etpack.wasm copied beside the bundle, and the inline entry as it is', { timeout: 120_000 }, async () => {
  const dir = join(app, 'rollup');
  mkdirSync(join(dir, 'dist'), { recursive: true });
  writeFileSync(join(dir, 'main.js'), APP('executorch-pack'));
  writeFileSync(join(dir, 'inline.js'), APP('executorch-pack/inline'));
  // The browser build: node-resolve's `browser` option picks the package's browser (default) entry.
  writeFileSync(join(dir, 'rollup.config.mjs'), `import { nodeResolve } from '${import.meta.resolve('@rollup/plugin-node-resolve')}';
export default { input: ['main.js', 'inline.js'], output: { dir: 'dist' }, plugins: [nodeResolve({ browser: true })] };
`);
  execFileSync(join(BIN, 'rollup'), ['-c', '--silent'], { ...quiet, cwd: dir });
  writeFileSync(join(dir, 'dist/index.html'), html('/main.js'));
  writeFileSync(join(dir, 'dist/inline.html'), html('/inline.js'));
  assert.deepEqual(await runInChromium(join(dir, 'dist'), '/inline.html'), EXPECTED);
  copyFileSync(join(app, 'node_modules/executorch-pack/dist/etpack.wasm'), join(dir, 'dist/etpack.wasm'));
  assert.deepEqual(await runInChromium(join(dir, 'dist')), EXPECTED);
});

test('Parcel, no configuration (it reads the package\'s `browser` field)', { timeout: 180_000 }, async () => {
  const dir = join(app, 'parcel');
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'src/index.html'), html('./main.js'));
  writeFileSync(join(dir, 'src/main.js'), APP('executorch-pack'));
  execFileSync(join(BIN, 'parcel'), ['build', 'src/index.html', '--dist-dir', 'dist', '--no-cache', '--no-source-maps', '--log-level', 'error'],
    { ...quiet, cwd: dir });
  assert.deepEqual(await runInChromium(join(dir, 'dist')), EXPECTED);
});

test('esbuild --platform=node: the bundle runs with no configuration (wasm found through the installed package)', { timeout: 120_000 }, () => {
  const dir = join(app, 'esbuild-node');
  mkdirSync(dir);
  writeFileSync(join(dir, 'main.js'), `import init from 'executorch-pack';
const et = await init();
const report = et.validate(process.argv[2]);  // a path, as in Node
const r = et.repack(process.argv[2], { output: 'artifact' });
await r.pte.writeTo(process.argv[3]);
console.log(JSON.stringify({ version: et.version, ok: report.ok, repacked: et.validate(process.argv[3]).ok }));
`);
  execFileSync(join(BIN, 'esbuild'), ['main.js', '--bundle', '--platform=node', '--format=esm', '--outfile=out/app.mjs', '--log-level=warning'], { ...quiet, cwd: dir });
  const out = join(work, 'add.repacked.pte');
  const result = JSON.parse(execFileSync(process.execPath, [join(dir, 'out/app.mjs'), PTE, out], { ...quiet, cwd: work }));
  assert.deepEqual(result, { version: EXPECTED.version, ok: true, repacked: true });
  assert.ok(existsSync(out));
});
