// graph() on large and hostile programs (issue 30): prints the time of
// et.graph (JSON and DOT) and the node and edge counts. Prints figures;
// asserts nothing (a benchmark, not a test). The page's own figure (the
// 20,000-instruction program drawn in Chromium) is printed by
// tests/browser/program-view.test.mjs.
//
//   node bench/graph.mjs
//
// Target: a 20,000-instruction program's graph in well under a second.
import { performance } from 'node:perf_hooks';
import init from '../npm/index.node.mjs';
import { syntheticProgram } from '../tests/js/helpers/programs.mjs';

const et = await init();

// Each case: a program and what it stresses.
const cases = [
  ['20,000 kernel calls', syntheticProgram({ tensors: 256, kernelCalls: 20_000 })],
  ['100,000 kernel calls', syntheticProgram({ tensors: 1024, kernelCalls: 100_000 })],
  ['20,000 calls, one value read by all', (() => {
    // Every call names the same input: its edges are O(uses), never O(values x instructions).
    const p = syntheticProgram({ tensors: 8, kernelCalls: 20_000 });
    for (const i of p.execution_plan[0].chains[0].instructions) i.instr_args.args = [0, 0, 0, 1];
    return p;
  })()],
];

console.log('case                                  bytes      json ms   dot ms    nodes   edges');
for (const [name, program] of cases) {
  const pte = et.serializePteBinary({ program: JSON.stringify(program) });
  const time = (fn) => {
    const t0 = performance.now();
    const r = fn();
    return [r, performance.now() - t0];
  };
  et.graph(pte);  // warm-up
  const [graph, jsonMs] = time(() => et.graph(pte));
  const [, dotMs] = time(() => et.graph(pte, { format: 'dot' }));
  const [m] = graph.methods;
  console.log(`${name.padEnd(36)} ${String(pte.byteLength).padStart(9)} ${jsonMs.toFixed(0).padStart(9)} ${dotMs.toFixed(0).padStart(8)} ${String(m.nodes.length).padStart(8)} ${String(m.edges.length).padStart(7)}`);
}
