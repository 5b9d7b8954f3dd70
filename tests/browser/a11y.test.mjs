// axe-core (npm) on every page, empty and with results shown: no violations.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../web/serve.mjs';
import { axeViolations as violations, launchChromium } from './helpers/chromium.mjs';
import { ARTIFACTS } from '../js/helpers/common.mjs';

const PTE = join(ARTIFACTS, 'arduino_add.pte');
let server, context, base, tmp;

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'etpack-a11y-'));
  server = await startServer(0);
  base = `http://127.0.0.1:${server.address().port}`;
  context = await launchChromium(join(tmp, 'profile'));
});
after(async () => { await context?.close(); server?.close(); if (tmp) rmSync(tmp, { recursive: true, force: true }); });

async function open(path) {
  const page = await context.newPage();
  await page.goto(`${base}/${path}`);
  if (path !== '') await page.waitForFunction(() => /ready/.test(document.getElementById('status').textContent));
  return page;
}

test('landing page', async () => {
  const page = await open('');
  assert.deepEqual(await violations(page), []);
  await page.close();
});

test('validator: empty, with a valid file, with an invalid one, with a URL error', async () => {
  const page = await open('validator.html');
  assert.deepEqual(await violations(page), [], 'empty');
  await page.setInputFiles('#files', PTE);
  await page.waitForFunction(() => /^Valid/.test(document.getElementById('verdict').textContent));
  assert.deepEqual(await violations(page), [], 'valid file shown');
  await page.setInputFiles('#files', { name: 'broken.pte', mimeType: 'application/octet-stream', buffer: Buffer.alloc(100, 7) });
  await page.waitForFunction(() => /^Invalid/.test(document.getElementById('verdict').textContent));
  assert.deepEqual(await violations(page), [], 'findings shown');
  await page.fill('#url', 'ftp://example.invalid/model.pte');
  await page.click('#url-form button');
  await page.waitForSelector('#url-error');
  assert.deepEqual(await violations(page), [], 'URL error shown');
  await page.close();
});

test('packager: empty, with a preview, with a field error', async () => {
  const page = await open('packager.html');
  assert.deepEqual(await violations(page), [], 'empty');
  await page.setInputFiles('#pte', PTE);
  await page.check('#externalize');
  await page.click('#preview');
  await page.waitForSelector('#result .filemap');
  assert.deepEqual(await violations(page), [], 'preview shown');
  await page.fill('#segAlign', '0');
  await page.click('#preview');
  await page.waitForSelector('#segAlign-error');
  assert.deepEqual(await violations(page), [], 'field error shown');
  await page.close();
});
