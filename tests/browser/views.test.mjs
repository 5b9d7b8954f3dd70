// Issue 40's done-when, in Chromium: at 1280 and at 390 px the validator
// given 13_everything's .pte, .ptd files and an ETDump of a run scrolls no
// page sideways, shows at least 5 graph labels at least 9 px tall (and
// drawn at >= 10 px) in the Program card's canvas on first paint, legends in
// the Program and Profile cards, the memory timeline's two axes, profile
// times with a unit, no page error, axe clean; screenshots of both widths
// (test-output/screenshots/, paths printed). A .bpte alone: no
// MALFORMED_FILE, a file map, its program drawn. web/dist/ (build-web.mjs)
// served by `python3 -m http.server` opens files and draws the program.
// A delegate of 230 XNNPACK nodes (x13's payload in x14's program), pressed
// at 1280 and 390 px: replaced by its nodes in windows of at most
// MAX_NODES / NARROW_NODES boxes, labels drawn at >= 10 px, paged with
// Next; its properties panel collapses it back to one box.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { axeViolations } from './helpers/chromium.mjs';
import { openPage, pageSession } from './helpers/pages.mjs';
import { loadApi } from '../js/helpers/common.mjs';

// The window budgets as web/program-graph.mjs declares them (it imports the page's dagre, so it is read, not imported).
const GRAPH_SOURCE = readFileSync(new URL('../../web/program-graph.mjs', import.meta.url), 'utf8');
const MAX_NODES = Number(/export const MAX_NODES = (\d+)/.exec(GRAPH_SOURCE)[1]);
const NARROW_NODES = Number(/export const NARROW_NODES = (\d+)/.exec(GRAPH_SOURCE)[1]);

const root = fileURLToPath(new URL('../../', import.meta.url));
const recording = join(root, '..', 'shared', 'etdump', 'e13_everything_r2_stubdelegate');
const FILES = ['out.pte', 'model.ptd', 'shard_b.ptd', 'e13_everything_r2_stubdelegate.etdp'].map((f) => join(recording, f));
const BPTE = join(root, '..', 'shared', 'conformance-bpte', 'v02_add_three_cases', 'out.bpte');
const shots = join(root, 'test-output', 'screenshots');
before(() => mkdirSync(shots, { recursive: true }));
const session = pageSession('views');

// Labels of the graph drawn inside the canvas's visible box: their heights (px).
const visibleLabels = (page) => page.evaluate(() => {
  const canvas = document.querySelector('#program .program-canvas').getBoundingClientRect();
  return [...document.querySelectorAll('#program .program-graph .node text')].map((t) => t.getBoundingClientRect())
    .filter((r) => r.width > 0 && r.left >= canvas.left - 1 && r.right <= canvas.right + 1 && r.top >= canvas.top - 1 && r.bottom <= canvas.bottom + 1)
    .map((r) => r.height);
});

const waitChecked = (page) => page.waitForFunction(() => /^Checked|rror/.test(document.getElementById('status').textContent), null, { timeout: 60_000 });

for (const width of [1280, 390]) {
  test(`validator at ${width} px: 13_everything + .ptd files + ETDump — readable graph, legends, axes, units, no sideways scroll`, async (t) => {
    const { page, problems } = await openPage(session, 'validator.html');
    await page.setViewportSize({ width, height: 900 });
    await page.setInputFiles('#files', FILES);
    await waitChecked(page);
    await page.waitForSelector('#program .program-graph .node');
    assert.match(await page.textContent('#verdict'), /^Valid/);
    await page.locator('#program').scrollIntoViewIfNeeded();
    const path = join(shots, `validator-views-${width}.png`);
    await page.screenshot({ path, fullPage: true });
    await page.locator('#program').screenshot({ path: join(shots, `validator-program-${width}.png`) });
    t.diagnostic(`screenshots: ${path}, validator-program-${width}.png`);
    const heights = await visibleLabels(page);
    assert.ok(heights.filter((h) => h >= 9).length >= 5, `labels in view: ${heights.map((h) => h.toFixed(1)).join(', ')}`);
    const drawnAt = await page.$eval('#program .program-graph', (s) => Number(s.dataset.scale) * 12);
    assert.ok(drawnAt >= 9.99, `labels drawn at ${drawnAt} px`);
    assert.ok(await page.$('#program [data-legend]'), 'a legend in the Program card');
    assert.ok(await page.$('#profile [data-legend]'), 'a legend in the Profile card');
    const legend = await page.textContent('#program [data-legend]');
    for (const kind of ['operator', 'delegate', 'input', 'output', 'constant', 'external', 'mutable']) assert.match(legend, new RegExp(kind));
    assert.ok(await page.$('#program [data-axis="instructions"]'), 'instruction axis');
    assert.ok(await page.$('#program [data-axis="bytes"]'), 'bytes axis');
    const profile = await page.textContent('#profile');
    assert.match(profile, /\d (µs|ms|ns)\b/, 'times with a unit');
    assert.doesNotMatch(profile, /file time units/);
    assert.match(profile, /file's times are ns/);
    // The memory timeline's figures are the memory plan's.
    const plan = await page.textContent('#summary');
    const lanes = await page.$$eval('#program .memory-timeline .lane-label', (ls) => ls.map((l) => l.textContent));
    for (const lane of lanes) {
      const m = /^buffer \d+: (.+?) planned/.exec(lane);
      assert.ok(m && plan.includes(m[1]), `${lane} agrees with the memory plan`);
    }
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `scrolls sideways at ${width} px by ${overflow} px`);
    // Search by name selects the box and fills the properties panel.
    await page.fill('#program-find', 'aten::mul');
    await page.click('#program .program-results button');
    assert.match(await page.textContent('.program-details'), /aten::mul/);
    if (width === 1280) assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
    await page.close();
  });
}

test('a .bpte alone: no MALFORMED_FILE, a file map, its program drawn, one verdict', async () => {
  const { page, problems } = await openPage(session, 'validator.html');
  await page.setInputFiles('#files', BPTE);
  await waitChecked(page);
  await page.waitForSelector('#program .program-graph .node');
  assert.match(await page.textContent('#verdict'), /^Valid/);
  assert.doesNotMatch(await page.textContent('main'), /MALFORMED_FILE/);
  assert.ok((await page.$$('#maps .seg')).length > 0, 'a file map');
  assert.ok((await page.$$('#sizes .bar')).length > 0, 'a size breakdown');
  assert.match(await page.textContent('#requirements'), /Needs ExecuTorch/);
  assert.match(await page.textContent('#summary'), /Test cases of forward \(3\)/);
  assert.equal(await page.$$eval('.verdict', (v) => v.length), 1);
  assert.deepEqual(problems, []);
  await page.close();
});

test('web/dist served by python3 -m http.server opens files and draws the program', async (t) => {
  const dist = join(session.tmp, 'dist');
  execFileSync(process.execPath, [join(root, 'scripts', 'build-web.mjs'), dist]);
  const python = spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '-d', dist], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const port = await new Promise((ok, fail) => {
      let text = '';
      const look = (d) => { text += d; const m = /port (\d+)/.exec(text); if (m) ok(Number(m[1])); };
      python.stdout.on('data', look);
      python.stderr.on('data', look);
      python.on('exit', (c) => fail(new Error(`http.server exited ${c}: ${text}`)));
      setTimeout(() => fail(new Error(`http.server did not start: ${text}`)), 10_000);
    });
    const page = await session.context.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(String(e)));
    await page.goto(`http://127.0.0.1:${port}/validator.html`);
    await page.waitForFunction(() => /ready/.test(document.getElementById('status').textContent), null, { timeout: 30_000 });
    await page.setInputFiles('#files', FILES.slice(0, 3));
    await waitChecked(page);
    await page.waitForSelector('#program .program-graph .node[data-instruction]');
    assert.match(await page.textContent('#verdict'), /^Valid/);
    t.diagnostic(`web/dist served on port ${port}`);
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    python.kill();
  }
});

// x14's program (one DelegateCall) carrying x13's 230-node payload: args [input, output].
function bigDelegatePte(et, dir) {
  const xnn = join(root, '..', 'shared', 'delegates', 'xnnpack');
  const program = JSON.parse(readFileSync(join(xnn, 'x14_no_constants', 'pte_inline', 'program.json'), 'utf8'));
  const plan = program.execution_plan[0];
  plan.inputs = [0];
  plan.chains[0].inputs = [0];
  plan.chains[0].instructions[0].instr_args.args = [0, 2];
  program.backend_delegate_data[0].data = [...readFileSync(join(xnn, 'x13_chain_230_nodes', 'blob.bin'))];
  const path = join(dir, 'x13-in-x14.pte');
  writeFileSync(path, et.serializePteBinary({ program: JSON.stringify(program) }));
  return path;
}

for (const width of [1280, 390]) {
  test(`Program view at ${width} px: a pressed delegate shows its 230 nodes in bounded windows, and collapses`, async () => {
    const et = await loadApi();
    const pte = bigDelegatePte(et, session.tmp);
    const { page, problems } = await openPage(session, 'validator.html');
    await page.setViewportSize({ width, height: 900 });
    await page.setInputFiles('#files', pte);
    await waitChecked(page);
    await page.click('#program .program-graph .node.delegate');
    await page.waitForSelector('#program .program-graph .node.delegateNode');
    const budget = width < 600 ? NARROW_NODES : MAX_NODES;
    const boxes = await page.$$eval('#program .program-graph .node', (ns) => ns.length);
    assert.ok(boxes <= budget, `${boxes} boxes in the window (at most ${budget})`);
    assert.match(await page.textContent('#program .program-caption'), /of 230 \(1 chain\)/);
    const drawnAt = await page.$eval('#program .program-graph', (s) => Number(s.dataset.scale) * 12);
    assert.ok(drawnAt >= 9.99, `labels drawn at ${drawnAt} px`);
    assert.match(await page.textContent('.program-details'), /xnnpack payload/);
    await page.locator('#program').screenshot({ path: join(shots, `validator-delegate-${width}.png`) });
    await page.click('#program-next');
    assert.ok(await page.$$eval('#program .program-graph .node', (ns) => ns.length) <= budget);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `scrolls sideways at ${width} px by ${overflow} px`);
    await page.click('#program .program-graph .node.delegateNode');
    await page.click('.program-details [data-collapse]');
    await page.waitForSelector('#program .program-graph .node.delegate');
    assert.equal(await page.$$eval('#program .program-graph .node.delegateNode', (ns) => ns.length), 0);
    assert.match(await page.textContent('#program .program-caption'), /of 1 \(/);
    assert.deepEqual(problems, []);
    await page.close();
  });
}
