// bench/ case 1 (issue 13): metadata speed against the JS engine's own JSON,
// measured side by side in one process. Each of our calls alternates with
// its baseline (JSON.stringify or JSON.parse of the same program), so that a
// machine loaded by other work slows both alike; medians are reported.
import { performance } from 'node:perf_hooks';
import init from '../npm/index.node.mjs';
import { syntheticProgram } from '../tests/js/helpers/programs.mjs';

// Upstream's Python serializer on P1 and at 200k EValues, as measured on
// this machine class (issue 13; upstream cannot run here).
export const UPSTREAM = { serializeMs: 891, deserializeMs: 828, rssMiB: 72, serialize200kMs: 16500, deserialize200kMs: 13200 };

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const rssNow = () => process.resourceUsage().maxRSS / 1024;  // MiB, peak so far

function timeOnce(fn) {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

// Medians of `runs` alternating runs of ours and the baseline (after two
// warm-ups of each).
function sideBySide(ours, baseline, runs) {
  const a = [];
  const b = [];
  for (let i = 0; i < runs + 2; ++i) {
    const x = timeOnce(ours);
    const y = timeOnce(baseline);
    if (i >= 2) {
      a.push(x);
      b.push(y);
    }
  }
  return { ours: median(a), baseline: median(b) };
}

// P1 at 1/10, 1x and 10x: 20,000 EValues (10k Int, 5k IntList, 5k Tensor)
// and 2,000 KernelCalls.
const programOf = (values) => syntheticProgram({ ints: values / 2, intLists: values / 4, tensors: values / 4 - 1, kernelCalls: values / 10 });

export async function runMetadata() {
  const et = await init();
  const heapBytes = () => et._internal.module.HEAPU8.byteLength;
  const program = programOf(20000);
  const text = JSON.stringify(program);
  const pte = et.serializeForExecutorch({ program }).pte;
  const heapStart = heapBytes();
  const rows = {};
  rows.serializeObject = sideBySide(() => et.serializeForExecutorch({ program }), () => JSON.stringify(program), 11);
  rows.serializeText = sideBySide(() => et.serializeForExecutorch({ program: text }), () => JSON.stringify(program), 11);
  rows.deserialize = sideBySide(() => et.deserializePteBinary(pte), () => JSON.parse(text), 11);
  rows.validate = sideBySide(() => et.validate(pte), () => JSON.parse(text), 11);
  rows.inspect = sideBySide(() => et.inspect(pte), () => JSON.parse(text), 11);
  const heapAfter = heapBytes();
  const peakP1 = rssNow();
  // Scaling: both ways at 2k, 20k and 200k EValues, per value.
  const scaling = [];
  for (const [values, runs] of [[2000, 15], [20000, 7], [200000, 3]]) {
    const p = values === 20000 ? program : programOf(values);
    const bytes = et.serializeForExecutorch({ program: p }).pte;
    const t = values === 20000 ? text : JSON.stringify(p);
    const ser = sideBySide(() => et.serializeForExecutorch({ program: p }), () => JSON.stringify(p), runs);
    const de = sideBySide(() => et.deserializePteBinary(bytes), () => JSON.parse(t), runs);
    scaling.push({ values, serialize: ser, deserialize: de });
  }
  return {
    values: program.execution_plan[0].values.length, size: pte.byteLength, rows, heapStart, heapAfter,
    peakOurs: peakP1, scaling,
  };
}

const ms = (t) => `${t.toFixed(t < 100 ? 1 : 0)} ms`;

export function reportMetadata(r) {
  const line = (name, row, base, target) => `${name.padEnd(26)} ours ${ms(row.ours).padStart(9)}   ${base} ${ms(row.baseline).padStart(9)}   ` +
    `ratio ${(row.ours / row.baseline).toFixed(2)}x${target ? ` (target ≤ ${target})` : ''}`;
  const { rows } = r;
  const out = [
    `P1: ${r.values} values -> ${r.size} byte .pte; medians of 11 alternating runs in one process (a loaded machine slows both sides alike)`,
    line('serialize, JS object', rows.serializeObject, 'JSON.stringify', '3x'),
    line('serialize, JSON text', rows.serializeText, 'JSON.stringify'),
    line('deserializePteBinary', rows.deserialize, 'JSON.parse    ', '3x'),
    line('validate', rows.validate, 'JSON.parse    ', '2x'),
    line('inspect', rows.inspect, 'JSON.parse    ', '2x'),
    `upstream Python (issue 13, this machine class, not runnable here): serialize ${UPSTREAM.serializeMs} ms, deserialize ${UPSTREAM.deserializeMs} ms, ` +
      `peak RSS ${UPSTREAM.rssMiB} MiB; ours is ${(UPSTREAM.serializeMs / rows.serializeObject.ours).toFixed(0)}x / ${(UPSTREAM.deserializeMs / rows.deserialize.ours).toFixed(0)}x faster`,
    `wasm heap: ${(r.heapStart / 2 ** 20).toFixed(0)} MiB after the first call, ${(r.heapAfter / 2 ** 20).toFixed(0)} MiB after all P1 runs (no growth = nothing kept between calls)`,
    `peak RSS after P1 both ways: ${r.peakOurs.toFixed(0)} MiB (target ≤ 110 MiB)`,
    'scaling (medians; µs per value; upstream at 200k: 16.5 s / 13.2 s):',
  ];
  for (const s of r.scaling) {
    const per = (t) => `${((t * 1000) / s.values).toFixed(2)} µs/value`;
    out.push(`  ${String(s.values).padStart(6)} values: serialize ${ms(s.serialize.ours)} (${per(s.serialize.ours)}, ${(s.serialize.ours / s.serialize.baseline).toFixed(2)}x stringify); ` +
      `deserialize ${ms(s.deserialize.ours)} (${per(s.deserialize.ours)}, ${(s.deserialize.ours / s.deserialize.baseline).toFixed(2)}x parse)`);
  }
  return out;
}
