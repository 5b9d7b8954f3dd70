// `profile` of a million events (issue 38): a one-method program of 1,000
// kernel calls and an ETDump of one load and 1,000 execute blocks of 1,000
// OPERATOR_CALL events each (written by tests/js/helpers/etdump-writer.mjs).
// Runs `profile` (text), `profile --json` and `profile --trace-out` in child
// processes and prints wall time, peak RSS and output size. Prints figures;
// asserts nothing (a benchmark, not a test).
//
//   node bench/profile.mjs [EVENTS]     default 1000000
//   BENCH_DIR=/path                     where temporary files go
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import init from '../npm/index.node.mjs';
import { runCli } from './measure.mjs';
import { writeETDump } from '../tests/js/helpers/etdump-writer.mjs';

const MiB = 1 << 20;
const events = Number(process.argv[2] ?? 1_000_000);
const perBlock = 1000;
const et = await init();
const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'etpack-bench-profile-'));
try {
  const ops = ['add', 'mul', 'sub', 'div'].map((name) => ({ name: `aten::${name}`, overload: 'out' }));
  const instructions = Array.from({ length: perBlock }, (_, i) => ({ instr_args: { op_index: i % 4, args: [0, 0] }, instr_args_type: 'KernelCall' }));
  const pte = et.serializePteBinary({ program: {
    version: 0, constant_buffer: [{ storage: [] }],
    execution_plan: [{
      name: 'forward', values: [{ val_type: 'Tensor', val: { scalar_type: 6, sizes: [1], dim_order: [0] } }], inputs: [0], outputs: [0],
      chains: [{ inputs: [0], outputs: [0], instructions }], operators: ops, delegates: [], non_const_buffer_sizes: [0],
    }],
  } });
  let clock = 1_000_000_000_000n;  // ns since init, past 2^39: exact 64-bit times
  const blocks = [{ name: 'Default', events: [{ name: 'Method::init', chain: -1, instruction: 0, start: clock, end: clock + 5n }] }];
  for (let b = 0; b < events / perBlock; ++b) {
    const list = [];
    for (let i = 0; i < perBlock; ++i) {
      const start = clock;
      clock += 100n + BigInt(i % 7);
      list.push({ name: 'OPERATOR_CALL', chain: 0, instruction: i, start, end: clock });
    }
    blocks.push({ name: 'Execute', events: list });
  }
  const [ptePath, etdpPath] = [join(dir, 'model.pte'), join(dir, 'run.etdp')];
  writeFileSync(ptePath, pte);
  writeFileSync(etdpPath, writeETDump(blocks));
  console.log(`${events.toLocaleString('en-US')} events: .etdp ${(statSync(etdpPath).size / MiB).toFixed(1)} MiB`);
  for (const [label, extra] of [['profile', []], ['profile --json', ['--json']], ['profile --trace-out', ['--trace-out', join(dir, 'trace.json')]]]) {
    const r = runCli(dir, ['profile', ptePath, '--etdump', etdpPath, ...extra]);
    const written = extra[0] === '--trace-out' ? ` (trace ${(statSync(extra[1]).size / MiB).toFixed(0)} MiB)` : '';
    console.log(`${label.padEnd(22)} ${(r.ms / 1000).toFixed(1)} s, peak RSS ${r.rssMiB.toFixed(0)} MiB, stdout ${r.outMiB.toFixed(0)} MiB${written}, exit ${r.status}: ${r.first.slice(0, 60)}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
