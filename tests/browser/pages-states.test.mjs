// The pages' states in words, checked in Chromium (screenshots in
// test-output/screenshots/): a file that is not a model leaves no empty
// Requirements card; a .pte without constants says so (never "stored in
// none"); the packager's errors carry the validator's plain words; its text
// names the outputs it writes (*.repacked.*).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openPage, pageSession } from './helpers/pages.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const ADD = join(root, '..', 'shared', 'artifacts', 'add.pte');
const shots = join(root, 'test-output', 'screenshots');
const NOT_A_MODEL = { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a model at all, just some text\n'.repeat(4)) };
before(() => mkdirSync(shots, { recursive: true }));
const session = pageSession('pages');

test('validator: a non-model file leaves no empty Requirements card; constants in words', async () => {
  const { page, problems } = await openPage(session, 'validator.html');
  await page.setInputFiles('#files', NOT_A_MODEL);
  await page.waitForFunction(() => document.getElementById('verdict').textContent !== '—');
  const needs = (await page.textContent('#requirements')).trim();
  assert.match(needs, /None to show: no file here is a \.pte or \.ptd/);
  await page.screenshot({ path: join(shots, 'validator-not-a-model-1280.png'), fullPage: true });
  await page.setInputFiles('#files', ADD);
  await page.waitForFunction(() => /^Valid/.test(document.getElementById('verdict').textContent));
  const summary = await page.textContent('#summary');
  assert.doesNotMatch(summary, /stored in/);
  assert.match(summary, /No constant data\.|tensor\(s\), .*(constant segment|inline)/);
  assert.match(await page.textContent('#requirements'), /Needs ExecuTorch/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('validator: a URL error is shown once, under the field', async () => {
  const { page, problems } = await openPage(session, 'validator.html');
  await page.fill('#url', 'ftp://example.invalid/model.pte');
  await page.click('#url-form button');
  await page.waitForSelector('#url-error');
  const error = await page.textContent('#url-error');
  assert.match(error, /Not an http\(s\) URL/);
  const body = await page.textContent('body');
  assert.equal(body.split(error).length - 1, 1, 'the message appears once on the page');
  assert.match(await page.textContent('#status'), /see the message under the field/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('packager: says which names it writes; a non-model file gets the validator\'s plain words', async () => {
  const { page, problems } = await openPage(session, 'packager.html');
  const intro = await page.textContent('main');
  assert.doesNotMatch(intro, /same names/);
  assert.match(intro, /\.repacked\.pte/);
  assert.match(intro, /\.repacked\.ptd/);
  await page.setInputFiles('#pte', { ...NOT_A_MODEL, name: 'notes.pte' });
  await page.waitForFunction(() => /Loaded notes\.pte/.test(document.getElementById('status').textContent));
  await page.click('#preview');
  await page.waitForFunction(() => document.getElementById('status').classList.contains('error'));
  assert.match(await page.textContent('#status'), /INVALID_INPUT/);
  const refusal = await page.textContent('#refusal');
  assert.match(refusal, /The validator found errors in the files/);
  assert.match(refusal, /BAD_IDENTIFIER/);
  assert.match(refusal, /does not start with a valid ExecuTorch header/);
  await page.screenshot({ path: join(shots, 'packager-not-a-model-1280.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});
