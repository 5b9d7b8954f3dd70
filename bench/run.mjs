// Benchmarks for large models (npm run bench). Prints figures; asserts
// nothing. Each case runs in its own Node process so that its peak RSS
// (process.resourceUsage().maxRSS) is its own; inside it, our path runs
// first and the baseline second, so the peak reported for ours is measured
// before the baseline allocates anything.
//
//   node bench/run.mjs            all five cases
//   node bench/run.mjs 2 4        some of them
//   BENCH_DIR=/path node bench/run.mjs   where temporary files go (default: os.tmpdir())
//
// Cases (issue 5):
//   1 metadata: P1 (20,000 EValues, 2,000 KernelCalls) both ways vs JSON, 2k/20k/200k scaling
//   2 500 constant tensors, 512 MiB -> contiguous Uint8Array
//   3 256 MiB external + 256 MiB in-.pte named data -> files, streamed
//   4 a 5 GiB .ptd from file-backed inputs, streamed
//   5 repack of a 1 GiB .pte with externalize -> .pte + .ptd
//   6 diff / export-weights / weights of large weights (issue 28; BENCH_WEIGHTS_MIB)
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cases } from './cases.mjs';

const self = fileURLToPath(import.meta.url);
const caseArg = process.argv.indexOf('--case');

if (caseArg >= 0) {
  const id = Number(process.argv[caseArg + 1]);
  const result = await cases[id].run();
  result.peakRssMiB = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else {
  const wanted = process.argv.slice(2).map(Number);
  const ids = wanted.length ? wanted : Object.keys(cases).map(Number);
  console.log(`executorch-pack benchmarks — node ${process.version}, ${new Date().toISOString()}`);
  for (const id of ids) {
    const c = cases[id];
    console.log(`\ncase ${id}: ${c.title}`);
    const child = spawnSync(process.execPath, ['--expose-gc', self, '--case', String(id)], {
      encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24,
    });
    const line = child.stdout.trim().split('\n').at(-1);
    if (child.status !== 0 || !line) {
      console.log(`  FAILED (exit ${child.status})`);
      process.exitCode = 1;
      continue;
    }
    const r = JSON.parse(line);
    for (const text of c.report(r)) console.log(`  ${text}`);
    const budget = r.rssBudgetMiB ? ` (target ≤ ${r.rssBudgetMiB.toFixed(0)} MiB)` : '';
    const what = r.peakOursWhat ? ` (${r.peakOursWhat})` : '';
    console.log(`  peak RSS: ours${what} ${r.peakOurs.toFixed(0)} MiB${budget}; whole process incl. baseline ${r.peakRssMiB.toFixed(0)} MiB`);
  }
}
