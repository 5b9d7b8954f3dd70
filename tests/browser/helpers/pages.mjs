// The set-up every page test shares: a temporary folder, the pages' static
// server (web/serve.mjs) and a Chromium context, made before a test file's
// tests and removed after them; and a page opened on it that collects its
// uncaught errors.
import { before, after } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../../web/serve.mjs';
import { launchChromium } from './chromium.mjs';

// Registers the file's before/after hooks; the returned object's `tmp`,
// `server`, `base` (the server's origin) and `context` are set once before()
// has run. `launch`: playwright launch options (e.g. acceptDownloads);
// `setup(session)` runs first (files the pages will be given), `teardown`
// after the browser and server are closed.
export function pageSession(name, { launch = {}, setup, teardown } = {}) {
  const session = { tmp: null, server: null, base: null, context: null };
  before(async () => {
    session.tmp = mkdtempSync(join(tmpdir(), `etpack-${name}-`));
    if (setup) await setup(session);
    session.server = await startServer(0);
    session.base = `http://127.0.0.1:${session.server.address().port}`;
    session.context = await launchChromium(join(session.tmp, 'profile'), launch);
  });
  after(async () => {
    await session.context?.close();
    session.server?.close();
    if (teardown) await teardown(session);
    if (session.tmp) rmSync(session.tmp, { recursive: true, force: true });
  });
  return session;
}

// A new page at `path` (below the server's root, query included), its
// uncaught errors pushed to `problems`; waits until the page's status line
// says it is ready unless `ready` is false.
export async function openPage(session, path, { ready = true } = {}) {
  const page = await session.context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(String(e)));
  await page.goto(`${session.base}/${path}`);
  if (ready) await page.waitForFunction(() => /ready/.test(document.getElementById('status').textContent));
  return { page, problems };
}
