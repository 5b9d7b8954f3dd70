// axe-core (npm) on every page, empty and with results shown: no violations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { axeViolations as violations } from './helpers/chromium.mjs';
import { ARTIFACTS } from '../js/helpers/common.mjs';
import { openPage, pageSession } from './helpers/pages.mjs';

const PTE = join(ARTIFACTS, 'arduino_add.pte');
const session = pageSession('a11y');

const open = async (path) => (await openPage(session, path, { ready: path !== '' })).page;

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
