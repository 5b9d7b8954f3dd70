// Issue 42's graph figure: the CLI's `graph` of a 20,000- and a
// 100,000-instruction program against `validate` of the same file, each in
// its own child process (measure.mjs: wall time and the child's peak RSS),
// in interleaved pairs; the ratio is the median of the pairs' ratios (a
// loaded machine slows both runs of a pair alike). Also the in-process
// et.graph() (JSON objects, DOT) for reference. Prints figures; asserts
// nothing (a benchmark, not a test).
//
//   node bench/graph-scale.mjs [PAIRS]      (default 3)
//
// Target (issue 42): graph of 100,000 instructions ≤ 2× validate, ≤ 300 MiB,
// and time linear in the instructions (100k / 20k ≈ 5).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import init from '../npm/index.node.mjs';
import { syntheticProgram } from '../tests/js/helpers/programs.mjs';
import { runCli } from './measure.mjs';

const PAIRS = Number(process.argv[2] ?? 3);
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const et = await init();
const dir = mkdtempSync(join(tmpdir(), 'etpack-graph-scale-'));

try {
  console.log('instructions   bytes     validate ms  graph ms  ratio  validate MiB  graph MiB  out MiB | api json ms  api dot ms');
  for (const [count, tensors] of [[20_000, 256], [100_000, 1024]]) {
    const pte = et.serializePteBinary({ program: JSON.stringify(syntheticProgram({ tensors, kernelCalls: count })) });
    const path = join(dir, `p${count}.pte`);
    writeFileSync(path, pte);
    const v = [], g = [], ratios = [];
    let vRss = 0, gRss = 0, out = 0;
    for (let i = 0; i < PAIRS; ++i) {
      const a = runCli(dir, ['validate', path]);
      const b = runCli(dir, ['graph', path]);
      if (a.status !== 0 || b.status !== 0) throw new Error(`exit ${a.status} / ${b.status}: ${a.first} / ${b.first}`);
      v.push(a.ms), g.push(b.ms), ratios.push(b.ms / a.ms);
      vRss = Math.max(vRss, a.rssMiB), gRss = Math.max(gRss, b.rssMiB), out = b.outMiB;
    }
    const time = (fn) => { const t0 = performance.now(); fn(); return performance.now() - t0; };
    const apiJson = time(() => et.graph(pte));
    const apiDot = time(() => et.graph(pte, { format: 'dot' }));
    console.log(`${String(count).padStart(12)} ${String(pte.byteLength).padStart(9)} ${median(v).toFixed(0).padStart(13)} ${median(g).toFixed(0).padStart(9)} ` +
      `${median(ratios).toFixed(2).padStart(6)} ${vRss.toFixed(0).padStart(13)} ${gRss.toFixed(0).padStart(10)} ${out.toFixed(1).padStart(8)} | ` +
      `${apiJson.toFixed(0).padStart(11)} ${apiDot.toFixed(0).padStart(11)}`);
  }
  console.log(`medians of ${PAIRS} interleaved pairs (validate, then graph; standard output to a file, as "> FILE"); RSS: the larger child peak`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
