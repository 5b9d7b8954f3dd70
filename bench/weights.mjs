// Case 6 of bench/run.mjs (issue 28): diff of two models with large weights
// against `sha256sum` of both files, and export-weights / weights of a large
// checkpoint against a plain Node stream copy of the same bytes. Size:
// BENCH_WEIGHTS_MIB (default 512) of weights in 16 constant tensors; the
// two models differ in one byte of one tensor. Best of three runs each,
// ours and the baseline alternating, each after a sync and a pause
// (BENCH_SETTLE_MS, default 5000); the stream copy is timed twice a round.
import { execFileSync, execSync } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { createReadStream, createWriteStream, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';

const MiB = 1 << 20;
const TENSORS = 16;
const RUNS = 3;

function program(sizeEach, external) {
  const values = [];
  for (let i = 0; i < TENSORS; ++i) {
    values.push({ val_type: 'Tensor', val: {
      scalar_type: 6, sizes: [sizeEach / 4], dim_order: [0],
      ...(external ? {} : { data_buffer_idx: i + 1 }),
      extra_tensor_info: { fully_qualified_name: `layers.${i}.weight`, location: external ? 1 : 0 },
    } });
  }
  return {
    version: 0,
    execution_plan: [{ name: 'forward', values, inputs: [], outputs: [], chains: [{ inputs: [], outputs: [], instructions: [] }],
      operators: [], delegates: [], non_const_buffer_sizes: [0] }],
    constant_buffer: [{ storage: [] }],
  };
}

// Each run starts settled: dirty pages synced and, after a pause, the memory
// freed by removed outputs handed back to the host, so that no run pays for
// another's page cache (bench/cases.mjs case 4 says why).
async function timed(fn) {
  execSync('sync');
  await new Promise((resolve) => setTimeout(resolve, Number(process.env.BENCH_SETTLE_MS ?? 5000)));
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export async function runWeights(et, dir) {
  const total = Number(process.env.BENCH_WEIGHTS_MIB ?? 512) * MiB;
  const sizeEach = Math.floor(total / TENSORS / 64) * 64;
  const weights = new Uint8Array(sizeEach * TENSORS);
  randomFillSync(weights);
  const constants = (w) => Array.from({ length: TENSORS }, (_, i) => ({ storage: w.subarray(i * sizeEach, (i + 1) * sizeEach) }));
  const withConstants = (w) => ({ program: { ...program(sizeEach, false), constant_buffer: [{ storage: [] }, ...constants(w)] } });
  const a = join(dir, 'a.pte');
  const b = join(dir, 'b.pte');
  writeFileSync(a, et.serializePteBinary(withConstants(weights)));
  weights[weights.length - 1] ^= 1;
  writeFileSync(b, et.serializePteBinary(withConstants(weights)));
  const external = join(dir, 'external.pte');
  writeFileSync(external, et.serializePteBinary({ program: program(sizeEach, true) }));
  execSync('sync');

  const st = join(dir, 'w.safetensors');
  const runs = { diff: [], sha256sum: [], export: [], weights: [], copy: [] };
  let verdict = null;
  for (let r = 0; r < RUNS; ++r) {
    runs.diff.push(await timed(async () => { verdict = await et.diff(a, b); }));
    runs.sha256sum.push(await timed(() => execFileSync('sha256sum', [a, b])));
    runs.export.push(await timed(() => et.exportWeights(a, [], { output: 'artifact' }).safetensors.writeTo(st)));
    runs.copy.push(await timed(() => pipeline(createReadStream(st), createWriteStream(join(dir, 'copy.safetensors')))));
    rmSync(join(dir, 'copy.safetensors'));
    runs.weights.push(await timed(async () => (await et.ptdFromWeights(external, [st], { output: 'artifact' })).ptd.writeTo(join(dir, 'w.ptd'))));
    rmSync(join(dir, 'w.ptd'));
    runs.copy.push(await timed(() => pipeline(createReadStream(st), createWriteStream(join(dir, 'copy.safetensors')))));
    rmSync(join(dir, 'copy.safetensors'));
  }
  const best = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, Math.min(...v)]));
  return { totalMiB: (sizeEach * TENSORS) / MiB, best, runs, changed: verdict.summary.tensors.changed, equivalent: verdict.equivalent };
}

export function reportWeights(r) {
  const ms = (t) => `${t.toFixed(0)} ms`;
  const ratio = (x, y) => `${(x / y).toFixed(2)}x`;
  return [
    `${r.totalMiB.toFixed(0)} MiB of weights in ${TENSORS} tensors per model (best of ${RUNS}; all runs: ${JSON.stringify(r.runs, (k, v) => (typeof v === 'number' ? Math.round(v) : v))})`,
    `diff a.pte b.pte: ours ${ms(r.best.diff)} vs sha256sum of both ${ms(r.best.sha256sum)}: ${ratio(r.best.diff, r.best.sha256sum)} (target 1.3x); ` +
      `${r.changed} tensor changed, equivalent ${r.equivalent}`,
    `export-weights -> safetensors: ours ${ms(r.best.export)} vs stream copy of the checkpoint ${ms(r.best.copy)}: ${ratio(r.best.export, r.best.copy)} (target 1.15x)`,
    `weights (checkpoint -> .ptd): ours ${ms(r.best.weights)} vs stream copy ${ms(r.best.copy)}: ${ratio(r.best.weights, r.best.copy)} (target 1.15x)`,
  ];
}
