// The validator's Program view in Chromium: opened with ?url= on the
// conformance model with delegates, constants, mutable and external data
// (13_everything, from a CORS range server), one [data-instruction] element
// per instruction of the method shown, values on Enter, keyboard zoom, no
// page error, axe clean; a screenshot whose path is printed. Then a
// 20,000-instruction program: the time to draw it is printed (a figure,
// not a timed assertion); windows of it by boxes, Next and Previous.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { axeViolations } from './helpers/chromium.mjs';
import { startRangeServer } from '../js/helpers/range-server.mjs';
import { syntheticProgram } from '../js/helpers/programs.mjs';
import { loadApi } from '../js/helpers/common.mjs';
import { pageSession } from './helpers/pages.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const CASE = join(root, '..', 'shared', 'conformance', '13_everything');
const shots = join(root, 'test-output', 'screenshots');
let files, et, bigPath;

before(() => mkdirSync(shots, { recursive: true }));
// 13_everything and a 20,000-instruction program on another origin (a CORS range server).
const session = pageSession('program', {
  setup: async ({ tmp }) => {
    et = await loadApi();
    bigPath = join(tmp, 'big.pte');
    writeFileSync(bigPath, et.serializePteBinary({ program: JSON.stringify(syntheticProgram({ tensors: 256, kernelCalls: 20_000 })) }));
    files = await startRangeServer({
      'out.pte': join(CASE, 'out.pte'), 'model.ptd': join(CASE, 'model.ptd'), 'shard_b.ptd': join(CASE, 'shard_b.ptd'), 'big.pte': bigPath,
    }, { cors: true });
  },
  teardown: () => files?.close(),
});

async function openChecked(urls) {
  const page = await session.context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(String(e)));
  await page.goto(`${session.base}/validator.html?${urls.map((u) => `url=${encodeURIComponent(u)}`).join('&')}`);
  await page.waitForFunction(() => /Fetched|rror/.test(document.getElementById('status').textContent), null, { timeout: 60_000 })
    .catch(async (e) => { throw new Error(`${e.message}; status: ${await page.textContent('#status')}; ${problems}`); });
  return { page, problems };
}

test('validator ?url= on 13_everything: one [data-instruction] per instruction, values on Enter, keyboard zoom, axe clean', async (t) => {
  const { page, problems } = await openChecked(['out.pte', 'model.ptd', 'shard_b.ptd'].map((f) => files.url('f', f)));
  const graph = et.graph(join(CASE, 'out.pte'), { data: ['model.ptd', 'shard_b.ptd'].map((f) => join(CASE, f)) });
  const kinds = new Set(graph.methods.flatMap((m) => m.nodes.map((n) => n.kind)));
  for (const k of ['delegate', 'constant', 'mutable', 'external']) assert.ok(kinds.has(k), `13_everything has ${k} nodes`);
  const methods = await page.$$eval('#program-method option', (os) => os.map((o) => o.textContent));
  assert.deepEqual(methods, graph.methods.map((m) => m.name));
  for (const [i, m] of graph.methods.entries()) {
    await page.selectOption('#program-method', String(i));
    // Windows are bounded by boxes: walk them all with Next.
    const shown = await page.$$eval('#program [data-instruction]', (els) => els.map((e) => e.getAttribute('data-instruction')));
    while (await page.isEnabled('#program-next')) {
      await page.click('#program-next');
      shown.push(...await page.$$eval('#program [data-instruction]', (els) => els.map((e) => e.getAttribute('data-instruction'))));
    }
    const expected = m.nodes.filter((n) => n.instruction).map((n) => `${n.instruction.chain}:${n.instruction.index}`);
    assert.deepEqual(shown.sort(), expected.sort(), `method ${m.name}`);
  }
  // The method with a delegate: its node names the backend; Enter shows its values.
  const withDelegate = graph.methods.findIndex((m) => m.nodes.some((n) => n.kind === 'delegate'));
  await page.selectOption('#program-method', String(withDelegate));
  const delegate = graph.methods[withDelegate].nodes.find((n) => n.kind === 'delegate');
  const selector = `#program [data-instruction="${delegate.instruction.chain}:${delegate.instruction.index}"]`;
  assert.match(await page.textContent(selector), new RegExp(delegate.backend));
  await page.focus(selector);
  await page.keyboard.press('Enter');
  const details = await page.textContent('.program-details');
  assert.match(details, /memory plan/);
  assert.match(details, /blob/);
  // A constant's node shows where its bytes are in the file.
  const withConstant = graph.methods.findIndex((m) => m.edges.some((e) => m.nodes.find((n) => n.id === e.from)?.kind === 'constant'));
  assert.ok(withConstant >= 0, 'a method reads a constant');
  await page.selectOption('#program-method', String(withConstant));
  await page.click('#program .node.constant');
  assert.match(await page.textContent('.program-details'), /file bytes \d+–\d+/);
  // Keyboard zoom changes the drawn size (never below 10 px labels).
  const before = await page.getAttribute('.program-graph', 'width');
  await page.focus('.program-canvas');
  await page.keyboard.press('+');
  await page.keyboard.press('ArrowRight');
  assert.notEqual(await page.getAttribute('.program-graph', 'width'), before);
  await page.keyboard.press('-');
  await page.keyboard.press('-');
  await page.keyboard.press('-');
  assert.ok(Number(await page.getAttribute('.program-graph', 'data-scale')) * 12 >= 9.99, 'labels stay at least 10 px');
  assert.ok(await page.$('.memory-timeline .tensor'), 'the timeline draws the planned tensors');
  await page.selectOption('#program-method', String(withDelegate));
  assert.deepEqual(await axeViolations(page), []);
  await page.focus(selector);
  await page.keyboard.press('Enter');
  const shot = join(shots, 'validator-program-13_everything.png');
  await page.locator('#program').screenshot({ path: shot });
  t.diagnostic(`screenshot: ${shot}`);
  console.log(`# Program view screenshot: ${shot}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('20,000 instructions: the Program view draws its first window; the time is printed', async (t) => {
  const { page, problems } = await openChecked([files.url('f', 'big.pte')]);
  await page.waitForSelector('#program [data-instruction]');
  assert.match(await page.textContent('.program-caption'), /of 20,000/);
  // The view alone, from the file's bytes: et.graph in wasm, dagre's layout
  // of the first window, the SVG and the memory timeline.
  const ms = await page.evaluate(async (url) => {
    const { etReady } = await import('./common.mjs');
    const { renderProgram } = await import('./program-view.mjs');
    const et = await etReady;
    const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
    const box = document.createElement('div');
    document.body.append(box);
    const t0 = performance.now();
    renderProgram(box, et, bytes, {}, 'big.pte');
    await new Promise(requestAnimationFrame);
    const elapsed = performance.now() - t0;
    const drawn = box.querySelectorAll('[data-instruction]').length;
    box.remove();
    return { elapsed, drawn };
  }, files.url('f', 'big.pte'));
  assert.ok(ms.drawn > 0);
  const figure = `20,000-instruction program: Program view drawn in ${ms.elapsed.toFixed(0)} ms (first window: ${ms.drawn} instructions) in Chromium`;
  t.diagnostic(figure);
  console.log(`# ${figure}`);
  // More on demand: the next window replaces this one.
  const first = await page.textContent('.program-caption');
  await page.click('#program-next');
  const next = /Instructions ([\d,]+)–/.exec(await page.textContent('.program-caption'));
  assert.ok(next && Number(next[1].replace(/,/g, '')) > 0, `${first} then ${next}`);
  await page.click('#program-prev');
  assert.equal(await page.textContent('.program-caption'), first);
  await page.screenshot({ path: join(shots, 'validator-program-20000.png') });
  assert.deepEqual(problems, []);
  await page.close();
});
