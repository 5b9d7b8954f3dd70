// Issue 38's page bounds, in Chromium: the validator stays responsive on
// hostile inputs. A program with one instruction reading 20,000 values
// (made by serializeForExecutorch) draws a bounded window with one "+N more"
// box that expands; an ETDump of 200,000 runs draws a few timelines and
// pages the rest; one run of 300,000 events draws a bounded timeline (no
// "Maximum call stack size exceeded"). validate/inspect/graph run in the
// core's worker (web/core-worker.mjs) and the ETDump is joined in a worker:
// while the core works the page answers a frame within FRAME_BOUND_MS.
// Whole loads (mostly the core's validate/inspect/graph/profile, timed by
// the core's own tests) must end within LOAD_BOUND_MS; the times are printed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadApi } from '../js/helpers/common.mjs';
import { writeETDump } from './helpers/etdumps.mjs';
import { openPage, pageSession } from './helpers/pages.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const ADD = join(root, '..', 'shared', 'etdump', 'add_r1', 'add.pte');
const LOAD_BOUND_MS = 120_000;  // a shared 2-core CI machine (load ~30 when measured: 16 s and 52 s)
const FRAME_BOUND_MS = 1_000;
const MAX_BOXES = 60;          // program-graph.mjs: MAX_NODES boxes and a few "+N more"
const WIDE = 20_000;
let widePte, manyRuns, manyEvents;

// One KernelCall reading 20,000 input tensors and writing one output.
function wideProgram() {
  const tensor = (offset) => ({ val_type: 'Tensor', val: { scalar_type: 6, sizes: [4], dim_order: [0],
    allocation_info: { memory_id: 1, memory_offset_low: offset, memory_offset_high: 0 } } });
  const values = [];
  for (let i = 0; i <= WIDE; ++i) values.push(tensor(16 * i));
  const inputs = values.slice(0, WIDE).map((_, i) => i);
  return {
    version: 0,
    execution_plan: [{ name: 'forward', values, inputs, outputs: [WIDE],
      chains: [{ inputs, outputs: [WIDE], instructions: [{ instr_args_type: 'KernelCall', instr_args: { op_index: 0, args: inputs.concat([WIDE]) } }] }],
      operators: [{ name: 'aten::cat', overload: 'out' }], delegates: [], non_const_buffer_sizes: [0, 16 * (WIDE + 1)] }],
    constant_buffer: [{ storage: [] }],
  };
}

const session = pageSession('page-bounds', {
  setup: async ({ tmp }) => {
    const et = await loadApi();
    widePte = join(tmp, 'wide.pte');
    writeFileSync(widePte, et.serializeForExecutorch({ program: wideProgram() }).pte);
    manyRuns = writeETDump(tmp, 'runs200k', { runs: 200_000, events: 1 });
    manyEvents = writeETDump(tmp, 'events300k', { runs: 1, events: 300_000 });
  },
});

// Loads `files`, returns the time to the status line's verdict and then to
// a frame; with `whileJoining`, also the time to a frame while the ETDump is
// being joined (the worker at work).
async function timedLoad(page, files, { whileJoining = false, whileChecking = false } = {}) {
  // The longest task the page's thread ran (Long Tasks API), for the log.
  await page.evaluate(() => {
    window.longestTask = 0;
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.longestTask = Math.max(window.longestTask, e.duration); }).observe({ type: 'longtask' });
  });
  const t0 = Date.now();
  await page.setInputFiles('#files', files);
  let during = null;
  if (whileChecking) {
    await page.waitForFunction(() => /^Checking/.test(document.getElementById('status').textContent), null, { timeout: LOAD_BOUND_MS });
    const t = Date.now();
    await page.evaluate(() => new Promise(requestAnimationFrame));
    during = Date.now() - t;
  }
  if (whileJoining) {
    await page.waitForFunction(() => /Joining/.test(document.getElementById('profile').textContent), null, { timeout: LOAD_BOUND_MS });
    const t = Date.now();
    await page.evaluate(() => new Promise(requestAnimationFrame));
    during = Date.now() - t;
  }
  await page.waitForFunction(() => /^Checked|rror/.test(document.getElementById('status').textContent), null, { timeout: LOAD_BOUND_MS + 30_000 });
  const load = Date.now() - t0;
  const t1 = Date.now();
  await page.evaluate(() => new Promise(requestAnimationFrame));
  const frame = Date.now() - t1;
  return { load, frame, during, longestTask: Math.round(await page.evaluate(() => window.longestTask)) };
}

test('one instruction reading 20,000 values: a bounded window, one "+N more" box that expands', async (t) => {
  const { page, problems } = await openPage(session, 'validator.html');
  const { load, frame, during, longestTask } = await timedLoad(page, [widePte], { whileChecking: true });
  t.diagnostic(`20,000-value instruction: page answered in ${load} ms, next frame ${frame} ms`);
  console.log(`# 20,000-value instruction: validator page done in ${load} ms (a frame while checking: ${during} ms, after: ${frame} ms; longest task on the page's thread ${longestTask} ms)`);
  assert.ok(load < LOAD_BOUND_MS && frame < FRAME_BOUND_MS && during < FRAME_BOUND_MS, `${load} ms, ${during} ms, ${frame} ms`);
  assert.equal(await page.getAttribute('#status', 'data-core'), 'worker', 'validate, inspect and graph ran in the worker');
  const boxes = await page.$$eval('#program .program-graph .node', (n) => n.length);
  assert.ok(boxes > 1 && boxes <= MAX_BOXES, `${boxes} boxes`);
  const more = '#program .node.more';
  assert.match(await page.getAttribute(more, 'aria-label'), /\+19,99\d more inputs/);
  await page.click(more);
  const after = await page.$$eval('#program .program-graph .node', (n) => n.length);
  assert.ok(after > boxes && after <= boxes + 30, `expanded: ${boxes} → ${after} boxes`);
  assert.match(await page.getAttribute(more, 'aria-label'), /more inputs/);
  // The instruction's properties list its values a page at a time.
  await page.click('#program .node.kernel');
  const rows = await page.$$eval('.program-details tbody tr', (r) => r.length);
  assert.ok(rows > 0 && rows <= 100, `${rows} value rows`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('ETDumps of 200,000 runs and of one 300,000-event run: a few timelines, bounded bars, no stack overflow', async (t) => {
  const { page, problems } = await openPage(session, 'validator.html');
  const runs = await timedLoad(page, [ADD, manyRuns], { whileJoining: true });
  console.log(`# ETDump of 200,000 runs: validator page done in ${runs.load} ms (a frame while joining: ${runs.during} ms, after: ${runs.frame} ms)`);
  t.diagnostic(`200,000 runs: ${runs.load} ms, frame ${runs.frame} ms`);
  assert.ok(runs.load < LOAD_BOUND_MS && runs.frame < FRAME_BOUND_MS && runs.during < FRAME_BOUND_MS, JSON.stringify(runs));
  assert.match(await page.textContent('#profile'), /200,000 run\(s\)/);
  assert.ok(await page.$$eval('#profile svg.timeline', (s) => s.length) <= 3, 'the first runs only');
  assert.match(await page.textContent('#profile .timelines'), /Show 5 more \(199,997 not shown\)/);
  await page.click('#profile .timelines .show-more');
  assert.equal(await page.$$eval('#profile svg.timeline', (s) => s.length), 8);
  const events = await timedLoad(page, [ADD, manyEvents], { whileJoining: true });
  console.log(`# ETDump of one 300,000-event run: validator page done in ${events.load} ms (a frame while joining: ${events.during} ms, after: ${events.frame} ms)`);
  t.diagnostic(`300,000 events: ${events.load} ms, frame ${events.frame} ms`);
  assert.ok(events.load < LOAD_BOUND_MS && events.frame < FRAME_BOUND_MS && events.during < FRAME_BOUND_MS, JSON.stringify(events));
  assert.doesNotMatch(await page.textContent('#profile'), /call stack/);
  const bars = await page.$$eval('#profile svg.timeline rect', (r) => r.length);
  assert.ok(bars > 0 && bars <= 1500, `${bars} bars`);
  assert.match(await page.textContent('#profile'), /300,001 events: the 1,500 longest drawn/);
  assert.deepEqual(problems, []);
  await page.close();
});
