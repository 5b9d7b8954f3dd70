// bench/ case 1 (issue 13): metadata speed against the JS engine's own JSON,
// measured side by side in one process. Each of our calls is paired with
// its baseline (JSON.stringify or JSON.parse of the same program), which of
// the two goes first alternating, each after a full GC: a machine loaded by
// other work slows both sides of a pair alike, so the ratio reported is the
// median of the pairs' ratios (beside the median times). Peak RSS is
// measured apart, in a fresh process that only runs P1 both ways
// (--rss below), as the issue states it.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import init from '../npm/index.node.mjs';
import { syntheticProgram } from '../tests/js/helpers/programs.mjs';

// Upstream's Python serializer on P1 and at 200k EValues, as measured on
// this machine class (issue 13; upstream cannot run here).
export const UPSTREAM = { serializeMs: 891, deserializeMs: 828, rssMiB: 72, serialize200kMs: 16500, deserialize200kMs: 13200 };

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const rssNow = () => process.resourceUsage().maxRSS / 1024;  // MiB, peak so far
const gc = () => globalThis.gc?.();

function timeOnce(fn) {
  gc();
  const start = performance.now();
  fn();
  return performance.now() - start;
}

// `runs` pairs of ours and the baseline (after two warm-up pairs), the
// order within a pair alternating.
function sideBySide(ours, baseline, runs) {
  const a = [];
  const b = [];
  for (let i = 0; i < runs + 2; ++i) {
    let x;
    let y;
    if (i % 2 === 0) {
      x = timeOnce(ours);
      y = timeOnce(baseline);
    } else {
      y = timeOnce(baseline);
      x = timeOnce(ours);
    }
    if (i >= 2) {
      a.push(x);
      b.push(y);
    }
  }
  return { ours: median(a), baseline: median(b), ratio: median(a.map((x, i) => x / b[i])) };
}

// P1 at 1/10, 1x and 10x: 20,000 EValues (10k Int, 5k IntList, 5k Tensor)
// and 2,000 KernelCalls.
const programOf = (values) => syntheticProgram({ ints: values / 2, intLists: values / 4, tensors: values / 4 - 1, kernelCalls: values / 10 });

const RUNS = 21;

export async function runMetadata() {
  const rss = rssChild();
  const et = await init();
  const heapBytes = () => et._internal.module.HEAPU8.byteLength;
  const program = programOf(20000);
  const text = JSON.stringify(program);
  const pte = et.serializeForExecutorch({ program }).pte;
  const heapStart = heapBytes();
  const rows = {};
  rows.serializeObject = sideBySide(() => et.serializeForExecutorch({ program }), () => JSON.stringify(program), RUNS);
  rows.serializeText = sideBySide(() => et.serializeForExecutorch({ program: text }), () => JSON.stringify(program), RUNS);
  rows.deserialize = sideBySide(() => et.deserializePteBinary(pte), () => JSON.parse(text), RUNS);
  rows.validate = sideBySide(() => et.validate(pte), () => JSON.parse(text), RUNS);
  rows.inspect = sideBySide(() => et.inspect(pte), () => JSON.parse(text), RUNS);
  const heapAfter = heapBytes();
  const peakSession = rssNow();
  // Scaling: both ways at 2k, 20k and 200k EValues, per value.
  const scaling = [];
  for (const [values, runs] of [[2000, 21], [20000, 9], [200000, 3]]) {
    const p = values === 20000 ? program : programOf(values);
    // The first call of a size grows the heap into pages never touched
    // before; later calls reuse them (instance.mjs keeps a heap a program
    // accounts for while calls keep coming).
    let bytes;
    const firstSerialize = timeOnce(() => { bytes = et.serializeForExecutorch({ program: p }).pte; });
    const firstDeserialize = timeOnce(() => et.deserializePteBinary(bytes));
    const t = values === 20000 ? text : JSON.stringify(p);
    const ser = sideBySide(() => et.serializeForExecutorch({ program: p }), () => JSON.stringify(p), runs);
    const de = sideBySide(() => et.deserializePteBinary(bytes), () => JSON.parse(t), runs);
    scaling.push({ values, serialize: ser, deserialize: de, firstSerialize, firstDeserialize, heapMiB: heapBytes() / 2 ** 20 });
  }
  return {
    values: program.execution_plan[0].values.length, size: pte.byteLength, rows, heapStart, heapAfter,
    peakSession, rss, peakOurs: rss.peak, peakOursWhat: `a fresh process running P1 both ways ${ROUNDS} times`, rssBudgetMiB: 110, scaling,
  };
}

// Peak RSS of a fresh Node process that builds P1 and runs it both ways
// (serializeForExecutorch, deserializePteBinary) five times, nothing else;
// and the bytes malloc holds in the wasm heap before and after each call.
const ROUNDS = 5;

function rssChild() {
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--rss'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const line = child.stdout.trim().split('\n').at(-1);
  if (child.status !== 0 || !line) throw new Error(`the RSS child failed (exit ${child.status})`);
  return JSON.parse(line);
}

async function rssRun() {
  const et = await init();
  const program = programOf(20000);
  const inUse = () => et._internal.module.heapInUse();
  const before = rssNow();
  const heapInUse = [inUse()];
  for (let i = 0; i < ROUNDS; ++i) {
    const { pte } = et.serializeForExecutorch({ program });
    heapInUse.push(inUse());
    et.deserializePteBinary(pte);
    heapInUse.push(inUse());
  }
  return { before, peak: rssNow(), heapInUse, heapBytes: et._internal.module.HEAPU8.byteLength };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--rss') {
  process.stdout.write(`${JSON.stringify(await rssRun())}\n`);
}

const ms = (t) => `${t.toFixed(t < 100 ? 1 : 0)} ms`;

export function reportMetadata(r) {
  const line = (name, row, base, target) => `${name.padEnd(26)} ours ${ms(row.ours).padStart(9)}   ${base} ${ms(row.baseline).padStart(9)}   ` +
    `ratio ${row.ratio.toFixed(2)}x${target ? ` (target ≤ ${target})` : ''}`;
  const { rows, rss } = r;
  const MiB = 2 ** 20;
  // The first call of each kind builds what is built once (the parsed
  // schemas, field-order caches); from then on every call must give back
  // all it took.
  const [start, afterSerialize, afterFirst, ...rest] = rss.heapInUse;
  const steady = rest.every((b) => b === afterFirst);
  const kib = (b) => `${(b / 1024).toFixed(1)} KiB`;
  const out = [
    `P1: ${r.values} values -> ${r.size} byte .pte; ${RUNS} pairs of one call and its baseline, alternating which goes first, each after a GC; ` +
      'median times and the median of the pairs\' ratios (a loaded machine slows both sides of a pair alike)',
    line('serialize, JS object', rows.serializeObject, 'JSON.stringify', '3x'),
    line('serialize, JSON text', rows.serializeText, 'JSON.stringify'),
    line('deserializePteBinary', rows.deserialize, 'JSON.parse    ', '3x'),
    line('validate', rows.validate, 'JSON.parse    ', '2x'),
    line('inspect', rows.inspect, 'JSON.parse    ', '2x'),
    `machine's JSON.stringify / JSON.parse of P1: ${ms(rows.serializeObject.baseline)} / ${ms(rows.deserialize.baseline)}`,
    `upstream Python (issue 13, this machine class, not runnable here): serialize ${UPSTREAM.serializeMs} ms, deserialize ${UPSTREAM.deserializeMs} ms, ` +
      `peak RSS ${UPSTREAM.rssMiB} MiB; ours is ${(UPSTREAM.serializeMs / rows.serializeObject.ours).toFixed(0)}x / ${(UPSTREAM.deserializeMs / rows.deserialize.ours).toFixed(0)}x faster`,
    `peak RSS of a fresh process that builds P1 and runs it both ways ${ROUNDS} times: ${rss.peak.toFixed(0)} MiB (target ≤ 110 MiB; ` +
      `${rss.before.toFixed(0)} MiB with the module loaded and P1 built, before the first call)`,
    `wasm heap in use (malloc): ${kib(start)} before the first call, ${kib(afterSerialize)} after the first serialize and ${kib(afterFirst)} ` +
      `after the first deserialize (built once), then ${steady ? 'the same after every later call: each call gives back all it took' : `NOT steady: ${rest.map(kib).join(', ')}`}; ` +
      `wasm memory ${(rss.heapBytes / MiB).toFixed(0)} MiB (it grows to the largest call and never shrinks)`,
    `this timing process: wasm memory ${(r.heapStart / MiB).toFixed(0)} MiB after the first call, ${(r.heapAfter / MiB).toFixed(0)} MiB after all P1 runs; ` +
      `peak RSS ${r.peakSession.toFixed(0)} MiB with the JSON baselines and P1's text held`,
    'scaling, both ways (medians after two warm-up pairs; µs per value; upstream at 200k: 16.5 s / 13.2 s):',
  ];
  for (const s of r.scaling) {
    const per = (t) => `${((t * 1000) / s.values).toFixed(2)} µs/value`;
    out.push(`  ${String(s.values).padStart(6)} values: serialize ${ms(s.serialize.ours)} (${per(s.serialize.ours)}, ${s.serialize.ratio.toFixed(2)}x stringify); ` +
      `deserialize ${ms(s.deserialize.ours)} (${per(s.deserialize.ours)}, ${s.deserialize.ratio.toFixed(2)}x parse); ` +
      `first call of the size ${ms(s.firstSerialize)} / ${ms(s.firstDeserialize)}; wasm memory ${s.heapMiB.toFixed(0)} MiB`);
  }
  return out;
}
