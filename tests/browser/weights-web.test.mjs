// Browser tests of the pages' diff and weights tools (web/weights-tools.mjs):
// the validator's "Compare with…", the packager's "Replace weights from
// safetensors" and "Export weights". Debian chromium + playwright-core.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../../web/serve.mjs';
import init from '../../npm/index.node.mjs';
import { float32, safetensorsBytes } from '../js/helpers/safetensors.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const everything = join(root, '..', 'shared', 'conformance', '13_everything');
const files = ['out.pte', 'model.ptd', 'shard_b.ptd'].map((f) => join(everything, f));
let server, context, base, tmp;

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'etpack-web-weights-'));
  server = await startServer(0);
  base = `http://127.0.0.1:${server.address().port}`;
  context = await chromium.launchPersistentContext(join(tmp, 'profile'), {
    executablePath: '/usr/bin/chromium', acceptDownloads: true, viewport: { width: 1280, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
});
after(async () => { await context?.close(); server?.close(); if (tmp) rmSync(tmp, { recursive: true, force: true }); });

async function openPage(path) {
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(String(e)));
  await page.goto(`${base}/${path}`);
  await page.waitForFunction(() => /ready/.test(document.getElementById('status').textContent));
  return { page, problems };
}

test('validator: Compare with… a repack says equivalent, another model different', async () => {
  const et = await init();
  const repacked = join(tmp, 'repacked.pte');
  writeFileSync(repacked, et.repack(files[0], { segmentAlignment: 4096 }).pte);
  const { page, problems } = await openPage('validator.html');
  await page.setInputFiles('#files', files);
  await page.waitForFunction(() => /^Valid/.test(document.getElementById('verdict').textContent));
  await page.setInputFiles('#compare', [repacked, files[1], files[2]]);
  await page.waitForFunction(() => document.querySelector('#diff .verdict-line'));
  assert.match(await page.textContent('#diff'), /Equivalent — only the layout differs/);
  assert.match(await page.textContent('#diff'), /segmentAlignment: 128 → 4096/);
  await page.setInputFiles('#compare', join(root, '..', 'shared', 'conformance', '11_external_constants_only', 'out.pte'));
  await page.waitForFunction(() => /Different/.test(document.getElementById('diff').textContent));
  assert.match(await page.textContent('#diff'), /\+ emb\.weight external Half\[3, 5\]/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('packager: new weights from safetensors give a .ptd with the new bytes; Export weights gives safetensors', async () => {
  const et = await init();
  const weight = float32([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  const bias = float32([3, 2, 1]);
  const checkpoint = join(tmp, 'new.safetensors');
  writeFileSync(checkpoint, safetensorsBytes([
    { name: 'lin.weight', dtype: 'F32', shape: [3, 3], bytes: weight },
    { name: 'lin.bias', dtype: 'F32', shape: [3], bytes: bias },
  ]));
  const { page, problems } = await openPage('packager.html');
  await page.setInputFiles('#pte', files[0]);
  await page.waitForFunction(() => /Loaded/.test(document.getElementById('status').textContent));
  const [ptdDownload] = await Promise.all([page.waitForEvent('download'), page.setInputFiles('#weights', checkpoint)]);
  assert.equal(ptdDownload.suggestedFilename(), 'out-weights.ptd');
  const ptd = readFileSync(await ptdDownload.path());
  const expected = await et.ptdFromWeights(files[0], [checkpoint]);
  assert.ok(Buffer.from(expected.ptd).equals(ptd), 'the page wrote other bytes than ptdFromWeights in Node');
  assert.match(await page.textContent('#weightsResult'), /2 tensor\(s\)/);

  await page.setInputFiles('#merge', [files[1]]);
  const [stDownload] = await Promise.all([page.waitForEvent('download'), page.click('#exportWeights')]);
  assert.equal(stDownload.suggestedFilename(), 'out.safetensors');
  const st = readFileSync(await stDownload.path());
  const n = Number(st.readBigUInt64LE(0));
  const header = JSON.parse(st.subarray(8, 8 + n).toString());
  assert.deepEqual(Object.keys(header).filter((k) => k !== '__metadata__'), ['lin.weight', 'lin.bias']);
  assert.equal(header.__metadata__['executorch-pack.data'], 'model.ptd');
  assert.deepEqual(problems, []);
  await page.close();
});
