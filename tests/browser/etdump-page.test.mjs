// The validator page's profile view (issue 31, web/profile-view.mjs): a
// .pte with its .ptd files and the .etdp of a run give a per-operator
// table and a timeline per run; elements carrying data-instruction (the
// Program view's nodes) are shaded by time. Screenshots go to
// test-output/screenshots/ (their paths are printed).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { axeViolations } from './helpers/chromium.mjs';
import { openPage, pageSession } from './helpers/pages.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const recording = join(root, '..', 'shared', 'etdump', 'e13_everything_r2_stubdelegate');
const shots = join(root, 'test-output', 'screenshots');
before(() => mkdirSync(shots, { recursive: true }));
const session = pageSession('etdump-web');

test('validator: a .pte, its .ptd files and an .etdp give the operator table, a timeline per run, shaded instructions', async () => {
  const { page, problems } = await openPage(session, 'validator.html');
  // A stand-in for the Program view's nodes (h-graph's page code marks its
  // instruction elements so): instruction 12 is the QnnBackend delegate call.
  await page.evaluate(() => {
    const view = document.createElement('div');
    view.dataset.method = 'forward';
    view.innerHTML = '<span id="node-12" data-instruction="0:12">delegate 2</span><span id="node-99" data-instruction="0:99">none</span>';
    document.querySelector('main').append(view);
  });
  await page.setInputFiles('#files', ['out.pte', 'model.ptd', 'shard_b.ptd', 'e13_everything_r2_stubdelegate.etdp'].map((f) => join(recording, f)));
  await page.waitForFunction(() => document.querySelectorAll('#profile table').length > 0 || /error/.test(document.getElementById('profile').className));
  assert.match(await page.textContent('#verdict'), /^Valid/);
  const profile = await page.textContent('#profile');
  assert.match(profile, /2 run\(s\), 3 block\(s\)/);
  assert.match(profile, /aten::mul\.out/);
  assert.match(profile, /XnnpackBackend/);
  assert.match(profile, /QnnBackend/);
  const operatorRows = await page.$$eval('#profile table', (t) => t[0].querySelectorAll('tbody tr').length);
  assert.equal(operatorRows, 4, 'add, clone, mul, copy_');
  assert.equal(await page.$$eval('#profile svg.timeline', (s) => s.length), 2, 'one timeline per execute run');
  const bars = await page.$$eval('#profile svg.timeline', (s) => s[0].querySelectorAll('rect').length);
  assert.equal(bars, 27, 'every event of run 0 drawn');
  const shaded = await page.$eval('#node-12', (n) => ({ time: n.dataset.profileTime, outline: n.style.outline }));
  assert.ok(Number(shaded.time) > 0 && /solid/.test(shaded.outline), JSON.stringify(shaded));
  assert.equal(await page.$eval('#node-99', (n) => n.dataset.profileTime ?? null), null, 'no time, no shade');
  assert.deepEqual(problems, []);
  // axe-core on the page with the profile shown (the stand-in nodes removed: not the page's).
  await page.evaluate(() => document.querySelector('[data-method]').remove());
  assert.deepEqual(await axeViolations(page), []);
  for (const width of [1280, 360]) {
    await page.setViewportSize({ width, height: 900 });
    const path = join(shots, `validator-profile-${width}.png`);
    await page.screenshot({ path, fullPage: true });
    console.log(`screenshot: ${path}`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `scrolls sideways at ${width} px by ${overflow} px`);
  }
  // The .etdp alone: the page says the program is needed.
  await page.setInputFiles('#files', join(recording, 'e13_everything_r2_stubdelegate.etdp'));
  await page.waitForFunction(() => /add the \.pte/.test(document.getElementById('profile').textContent));
  await page.close();
});
