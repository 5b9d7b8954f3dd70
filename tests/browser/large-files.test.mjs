// The validator page on a big valid file (issue 11): a .pte with 150,000
// segments is checked and summarized in the page, its file map merges runs
// of small ranges (a few hundred elements, not 300,000) and stays one tab
// stop with arrow keys, and its named data shows a first page of rows with
// a "Show more" button; axe finds nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';
import { startServer } from '../../web/serve.mjs';
import init from '../../npm/index.node.mjs';
import { manySegmentsPte } from '../js/helpers/hostile_files.mjs';

const SEGMENTS = 150_000;
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let server, context, base, tmp;

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'etpack-large-web-'));
  server = await startServer(0);
  base = `http://127.0.0.1:${server.address().port}`;
  context = await chromium.launchPersistentContext(join(tmp, 'profile'), {
    executablePath: '/usr/bin/chromium', viewport: { width: 1280, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
});
after(async () => { await context?.close(); server?.close(); if (tmp) rmSync(tmp, { recursive: true, force: true }); });

test('validator: a .pte with 150,000 segments is inspected; the map merges small ranges; tables page', async (t) => {
  const et = await init();
  const file = join(tmp, 'segments.pte');
  writeFileSync(file, manySegmentsPte(et, SEGMENTS));
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(String(e)));
  await page.goto(`${base}/validator.html`);
  await page.waitForFunction(() => /ready/.test(document.getElementById('status').textContent));
  const started = Date.now();
  await page.setInputFiles('#files', file);
  await page.waitForFunction(() => document.getElementById('verdict').textContent !== '—', null, { timeout: 60_000 });
  t.diagnostic(`checked and shown in ${((Date.now() - started) / 1000).toFixed(1)} s`);  // a figure, not a bound
  assert.match(await page.textContent('#summary'), /150,000 segments/);
  assert.match(await page.textContent('#summary'), /Named data \(150,000\)/);

  const items = await page.$$eval('#maps .seg', (s) => s.length);
  assert.ok(items > 1 && items < 1000, `${items} map items`);
  assert.match(await page.textContent('#maps'), /300,00\d ranges/);
  // One tab stop; the arrow keys move along the merged items.
  assert.equal(await page.$$eval('#maps .seg', (s) => s.filter((e) => e.tabIndex === 0).length), 1);
  await page.focus('#maps .seg[tabindex="0"]');
  await page.keyboard.press('End');
  assert.match(await page.textContent('#maps .tip'), /small ranges|bytes/);
  assert.equal(await page.evaluate(() => document.activeElement === document.querySelector('#maps .seg:last-child')), true);

  const rows = () => page.$$eval('#summary tbody tr', (r) => r.length);
  assert.equal(await rows(), 100);
  await page.click('#summary .show-more');
  assert.equal(await rows(), 1100);
  assert.match(await page.textContent('#summary .show-more'), /148,900 not shown/);
  // The merged map and the paged table pass axe as the small ones do.
  await page.addScriptTag({ path: AXE });
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  assert.deepEqual(result.violations.map((v) => `${v.id}: ${v.help}`), []);
  assert.deepEqual(problems, []);
  await page.close();
});
