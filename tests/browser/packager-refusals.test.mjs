// The packager page takes a whole model (the .pte, the .ptd files it uses)
// and shows repack's refusals: missing data with its keys, an invalid input
// with its findings (issue 10).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../../web/serve.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const c13 = join(root, '..', 'shared', 'conformance', '13_everything');
let server, context, base, tmp;

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'etpack-packager-'));
  server = await startServer(0);
  base = `http://127.0.0.1:${server.address().port}`;
  context = await chromium.launchPersistentContext(join(tmp, 'profile'), {
    executablePath: '/usr/bin/chromium', acceptDownloads: true, viewport: { width: 1280, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
});
after(async () => { await context?.close(); server?.close(); if (tmp) rmSync(tmp, { recursive: true, force: true }); });

test('packager: missing data and invalid inputs are refused with their details; with its data the model repacks', async () => {
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(String(e)));
  await page.goto(`${base}/packager.html`);
  await page.waitForFunction(() => /ready/.test(document.getElementById('status').textContent));

  await page.setInputFiles('#pte', join(c13, 'out.pte'));
  await page.waitForFunction(() => /Loaded/.test(document.getElementById('status').textContent));
  await page.click('#preview');
  await page.waitForFunction(() => /MISSING_EXTERNAL_DATA/.test(document.getElementById('status').textContent));
  const refusal = await page.textContent('#refusal');
  assert.match(refusal, /lin\.weight/);
  assert.match(refusal, /lin\.bias/);
  assert.equal(await page.$$eval('#downloads a', (a) => a.length), 0);

  await page.setInputFiles('#data', [join(c13, 'model.ptd'), join(c13, 'shard_b.ptd')]);
  await page.click('#preview');
  await page.waitForFunction(() => /Outputs validate: ok/.test(document.getElementById('result').textContent));
  assert.equal((await page.textContent('#refusal')).trim(), '');
  // Carried under their tags; named apart from the inputs they came from.
  assert.match(await page.textContent('#result'), /model\.repacked\.ptd/);
  assert.match(await page.textContent('#result'), /shard_b\.repacked\.ptd/);

  const bad = readFileSync(join(c13, 'out.pte'));
  bad[8] = 0x78;  // eh00 -> xh00
  const badPath = join(tmp, 'bad.pte');
  writeFileSync(badPath, bad);
  await page.setInputFiles('#pte', badPath);
  await page.waitForFunction(() => /Loaded bad\.pte/.test(document.getElementById('status').textContent));
  await page.click('#preview');
  await page.waitForFunction(() => /INVALID_INPUT/.test(document.getElementById('status').textContent));
  assert.ok(await page.$$eval('#refusal .finding', (f) => f.length) > 0, 'findings are listed');
  assert.deepEqual(problems, []);
  await page.close();
});
