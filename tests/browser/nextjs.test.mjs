// Next.js (app router) with no configuration: a client component imports the
// packed package (`npm pack` of npm/), `next build` builds it with Turbopack
// (Next's default) and with webpack (`--webpack`), both the server and the
// client pass, and `next start` serves it to Chromium, where it shows an
// inspect() result. No browser-side build may pick the Node entry, and the
// wasm is found on the first request (no 404 probe).
// Next's builds are slow on a small machine (on 2 shared cores: Turbopack
// about 2.5 min, webpack about 8 min), so they run only when asked:
// ETPACK_NEXTJS=1 node --test tests/browser/nextjs.test.mjs. The export
// conditions test below always runs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { ARTIFACTS, NPM, ROOT } from '../js/helpers/common.mjs';

const SKIP = process.env.ETPACK_NEXTJS === '1' ? false : 'opt-in: ETPACK_NEXTJS=1 (next build takes minutes)';
const NEXT = join(ROOT, 'node_modules/next/dist/bin/next');
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', npm_config_update_notifier: 'false', NO_COLOR: '1' };
const quiet = { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000, env };
let work, context;

// The app lives under the repository's build/ folder, so that `next`,
// `react` and `react-dom` resolve from the workspace's node_modules (and
// Turbopack's root, found by the workspace's lockfile, holds them); the
// package is the packed tarball, unpacked into the app's node_modules.
before(() => {
  if (SKIP) return;
  mkdirSync(join(ROOT, 'build'), { recursive: true });
  work = mkdtempSync(join(ROOT, 'build', 'nextjs-'));
  const pack = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', work], { ...quiet, cwd: NPM }).replace(/^[^[]*/s, ''));
  const app = join(work, 'app');
  mkdirSync(join(app, 'node_modules/executorch-pack'), { recursive: true });
  execFileSync('tar', ['-xzf', join(work, pack[0].filename), '-C', join(app, 'node_modules/executorch-pack'), '--strip-components=1'], quiet);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'next-app', private: true }));
  mkdirSync(join(app, 'app'));
  mkdirSync(join(app, 'public'));
  copyFileSync(join(ARTIFACTS, 'add.pte'), join(app, 'public/add.pte'));
  writeFileSync(join(app, 'app/layout.jsx'), `export const metadata = { title: 'inspect' };
export default function RootLayout({ children }) {
  return <html lang="en"><body>{children}</body></html>;
}
`);
  writeFileSync(join(app, 'app/page.jsx'), `import Inspect from './inspect';
export default function Page() {
  return <main><h1>executorch-pack</h1><Inspect /></main>;
}
`);
  // A client component importing the package at the top, as users write it.
  writeFileSync(join(app, 'app/inspect.jsx'), `'use client';
import { useEffect, useState } from 'react';
import init from 'executorch-pack';

export default function Inspect() {
  const [result, setResult] = useState(null);
  useEffect(() => {
    (async () => {
      const et = await init();
      const bytes = new Uint8Array(await (await fetch('/add.pte')).arrayBuffer());
      const s = et.inspect(bytes);
      return { version: et.version, format: s.format, methods: s.methods.map((m) => m.name), operators: s.methods[0].operators.map((o) => o.name), ok: et.validate(bytes).ok };
    })().then((r) => { window.__result = r; setResult(r); }, (e) => { window.__result = { error: String(e?.code) + ': ' + String(e?.message) }; });
  }, []);
  return <pre id="result">{result ? JSON.stringify(result) : 'loading'}</pre>;
}
`);
});

after(async () => {
  await context?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const freePort = () => new Promise((ok) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address();
    s.close(() => ok(port));
  });
});

// `next start` on a free port until the page has answered; every response
// recorded.
async function showInChromium(app) {
  const port = await freePort();
  const server = spawn(process.execPath, [NEXT, 'start', '-p', String(port), '-H', '127.0.0.1'], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  server.stdout.on('data', (d) => { log += d; });
  server.stderr.on('data', (d) => { log += d; });
  try {
    await new Promise((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`next start did not start:\n${log}`)), 60_000);
      const check = () => (/Ready|started server|Local:/i.test(log) ? (clearTimeout(timer), ok()) : setTimeout(check, 100));
      check();
    });
    context ??= await chromium.launchPersistentContext(join(work, 'profile'), {
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
    const tab = await context.newPage();
    const responses = [];
    tab.on('response', (r) => responses.push({ url: r.url(), status: r.status() }));
    try {
      await tab.goto(`http://127.0.0.1:${port}/`);
      await tab.waitForFunction(() => window.__result, null, { timeout: 60_000 });
      const result = await tab.evaluate(() => window.__result);
      const shown = await tab.textContent('#result');
      return { result, shown, responses };
    } finally {
      await tab.close();
    }
  } finally {
    server.kill('SIGTERM');
  }
}

const EXPECTED = { version: JSON.parse(readFileSync(join(NPM, 'package.json'), 'utf8')).version, format: 'pte', methods: ['forward'], operators: ['aten::add'], ok: true };

for (const [name, flags] of [['Turbopack', []], ['webpack', ['--webpack']]]) {
  test(`Next.js 16 app router, ${name}, no configuration: a client component shows inspect() in Chromium`, { skip: SKIP, timeout: 900_000 }, async () => {
    const app = join(work, 'app');
    const started = Date.now();
    const build = execFileSync(process.execPath, [NEXT, 'build', ...flags], { ...quiet, cwd: app });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    process.stderr.write(`# next build (${name}): ${seconds} s\n`);
    assert.doesNotMatch(build, /Module not found|Can't resolve/);
    const { result, shown, responses } = await showInChromium(app);
    assert.deepEqual(result, EXPECTED);
    assert.equal(shown, JSON.stringify(EXPECTED));
    // The wasm came on the first request, and nothing answered 404.
    const wasm = responses.filter((r) => /\.wasm(\?|$)/.test(r.url));
    assert.equal(wasm.length, 1, JSON.stringify(responses));
    assert.equal(wasm[0].status, 200);
    assert.deepEqual(responses.filter((r) => r.status === 404), []);
    rmSync(join(app, '.next'), { recursive: true, force: true });
  });
}

test('export conditions: browser and worker builds get the browser entry before `node` is looked at', () => {
  const pkg = JSON.parse(readFileSync(join(NPM, 'package.json'), 'utf8'));
  const root = pkg.exports['.'];
  const order = Object.keys(root);
  for (const condition of ['browser', 'worker']) {
    assert.ok(order.indexOf(condition) >= 0 && order.indexOf(condition) < order.indexOf('node'), `${condition} before node: ${order}`);
    assert.equal(root[condition].default, './index.browser.mjs');
    assert.equal(root[condition].types, './index.d.ts');
  }
  assert.equal(root.node.default, './index.node.mjs');
  assert.equal(root.default, './index.browser.mjs');
});
