// profile under hostile and unusual recordings (issues 37 and 38): method
// attribution by the chains every run starts (a two-method recording joined
// block for block; an ambiguous block never guessed across), statistics in
// exact integer arithmetic (totals past 2^64, u64 start/end, events ending
// before they start reported), a .bpte joined as its embedded program, and
// profileTrace's arguments checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SHARED, loadApi, parseLossless } from './helpers/common.mjs';
import { runCli } from './helpers/cli.mjs';
import { writeETDump } from './helpers/etdump-writer.mjs';

const et = await loadApi();
const tmp = mkdtempSync(join(tmpdir(), 'etpack-profile-bounds-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

const FLOAT = 6;
const kernel = (op) => ({ instr_args: { op_index: op, args: [0, 0] }, instr_args_type: 'KernelCall' });
function plan(name, chains) {
  return {
    name,
    values: [{ val_type: 'Tensor', val: { scalar_type: FLOAT, sizes: [1], dim_order: [0], allocation_info: { memory_id: 1, memory_offset_low: 0, memory_offset_high: 0 } } }],
    inputs: [0], outputs: [0],
    chains: chains.map((ops) => ({ inputs: [0], outputs: [0], instructions: ops.map(kernel) })),
    operators: [{ name: 'aten::add', overload: 'out' }, { name: 'aten::mul', overload: 'out' }, { name: 'aten::sub', overload: 'out' }],
    delegates: [], non_const_buffer_sizes: [0, 16],
  };
}
const pteOf = (plans) => et.serializePteBinary({ program: { version: 0, execution_plan: plans, constant_buffer: [{ storage: [] }] } });

let clock = 1000n;
const ev = (chain, instruction, name = 'OPERATOR_CALL', length = 10n) => {
  const start = clock;
  clock += length;
  return { name, chain, instruction, start, end: clock };
};
const load = () => ({ name: 'Default', events: [ev(-1, 0, 'Method::init'), ev(-1, 0, 'Program::load_method')] });
const run = (...ids) => ({ name: 'Execute', events: [...ids.map(([c, i]) => ev(c, i)), ev(-1, 0, 'Method::execute')] });

test('two methods: forward run twice, then a two-chain method run twice, joined block for block', () => {
  // forward: one chain (add, mul); two: chain 0 (add, mul) and chain 1 (sub).
  // forward's runs fit both methods by instruction ids; only `two` starts a chain 1.
  const pte = pteOf([plan('forward', [[0, 1]]), plan('two', [[0, 1], [2]])]);
  const etdp = writeETDump([load(), run([0, 0], [0, 1]), run([0, 0], [0, 1]), load(), run([0, 0], [0, 1], [1, 0]), run([0, 0], [0, 1], [1, 0])]);
  const p = et.profile(etdp, pte);
  assert.deepEqual(p.blocks.map((b) => [b.method, b.methodFrom, b.run]), [
    ['forward', 'load order', null], ['forward', 'instructions', 0], ['forward', 'instructions', 1],
    ['two', 'load order', null], ['two', 'instructions', 0], ['two', 'instructions', 1]]);
  assert.deepEqual(p.blocks[1].candidates, ['forward']);
  assert.deepEqual(p.warnings, []);
  const sub = p.operators.find((s) => s.name === 'aten::sub.out');
  assert.deepEqual([sub.count, sub.methods], [2, ['two']]);
  assert.deepEqual(p.operators.find((s) => s.name === 'aten::add.out').methods, ['forward', 'two']);
});

test('an ambiguous block is never guessed across: the load before it stays unknown, with candidates', () => {
  // a and b: one chain (add); c: two chains (mul; sub), so a run naming
  // only instruction 0 of chain 0 is no run of c.
  const pte = pteOf([plan('a', [[0]]), plan('b', [[0]]), plan('c', [[1], [2]])]);
  const etdp = writeETDump([load(), run([0, 0]), load(), run([0, 0], [1, 0])]);
  const p = et.profile(etdp, pte);
  assert.deepEqual(p.blocks.map((b) => [b.method, b.methodFrom]), [[null, null], [null, null], ['c', 'load order'], ['c', 'instructions']]);
  assert.deepEqual(p.blocks[0].candidates, ['a', 'b']);
  assert.deepEqual(p.blocks[1].candidates, ['a', 'b']);
  assert.equal(p.warnings.length, 2);
  assert.match(p.warnings[0], /block 0 \(Default\): it names no instruction and the block after it does not show which method was loaded \(candidates a, b\)/);
  assert.match(p.warnings[1], /block 1 \(Execute\): ambiguous between methods a, b/);
  // Two loads in a row: the first is not given the later method.
  const twice = et.profile(writeETDump([load(), load(), run([0, 0], [1, 0])]), pte);
  assert.deepEqual(twice.blocks.map((b) => b.method), [null, 'c', 'c']);
  assert.deepEqual(twice.blocks[0].candidates, ['a', 'b', 'c']);
  // Named, it joins.
  assert.deepEqual(et.profile(etdp, pte, { methods: ['a', 'a'] }).blocks.map((b) => b.method), ['a', 'a', 'c', 'c']);
});

test('statistics are exact: totals past 2^64, u64 times, events that end before they start', () => {
  const pte = pteOf([plan('forward', [[0]])]);
  const max = 2n ** 64n - 1n;
  const half = 2n ** 63n;
  const etdp = writeETDump([
    { name: 'Execute', events: [{ name: 'OPERATOR_CALL', chain: 0, instruction: 0, start: 0n, end: max }] },
    { name: 'Execute', events: [{ name: 'OPERATOR_CALL', chain: 0, instruction: 0, start: 1n, end: half + 1n }] },
    { name: 'Execute', events: [{ name: 'OPERATOR_CALL', chain: 0, instruction: 0, start: 5n, end: 3n }] },
  ]);
  const p = et.profile(etdp, pte);
  assert.equal(p.blocks[0].events[0].duration, max);
  assert.equal(p.blocks[0].events[0].endTime, max);
  assert.equal(p.blocks[2].events[0].duration, null);
  const add = p.operators[0];
  assert.equal(add.count, 2);
  assert.equal(add.total, max + half);  // 2^64 + 2^63 - 1: no saturation
  assert.equal(add.min, half);
  assert.equal(add.max, max);
  assert.ok(add.mean >= Number(add.min) && add.mean <= Number(add.max), `${add.mean}`);
  assert.equal(add.mean, Number(max + half) / 2);
  assert.deepEqual(p.warnings, ['block 2 (Execute): 1 event(s) end before they start (the first: event 0, start 5, end 3); their duration is null and no statistic counts them']);
  // The trace takes null durations as 0.
  const trace = et.profileTrace(p);
  assert.equal(trace.traceEvents.filter((e) => e.cat === 'instruction' && e.args.startTime === 5).length, 1);
});

test('profile of a .bpte joins its embedded program', () => {
  const dir = join(process.env.ETPACK_ETDUMP_DIR ?? join(SHARED, 'etdump'), 'add_r2');
  const pte = new Uint8Array(readFileSync(join(dir, 'add.pte')));
  const bpte = et.serializeBundledProgram({ version: 0, program: pte, method_test_suites: [] });
  const etdp = join(dir, 'add_r2.etdp');
  assert.deepEqual(et.profile(etdp, bpte), et.profile(etdp, pte));
});

test('profileTrace checks its arguments; the CLI streams the same trace and JSON', async () => {
  for (const bad of [undefined, null, 0, {}, { blocks: [1] }, 'x']) {
    assert.throws(() => et.profileTrace(bad), (e) => e instanceof et.EtpackError && e.code === 'INVALID_ARGUMENT', String(bad));
  }
  const pte = pteOf([plan('forward', [[0, 1]]), plan('two', [[0, 1], [2]])]);
  const etdp = writeETDump([load(), run([0, 0], [0, 1]), load(), run([0, 0], [0, 1], [1, 0])]);
  assert.throws(() => et.profileTrace(et.profile(etdp, pte), { name: 'x' }), { code: 'INVALID_ARGUMENT' });
  const [ptePath, etdpPath, traceOut] = ['two.pte', 'two.etdp', 'trace.json'].map((f) => join(tmp, f));
  writeFileSync(ptePath, pte);
  writeFileSync(etdpPath, etdp);
  const r = await runCli(['profile', ptePath, '--etdump', etdpPath, '--json', '--trace-out', traceOut]);
  assert.equal(r.status, 0, r.stderr);
  const doc = parseLossless(r.stdout);
  assert.deepEqual(doc, { schema: 1, command: 'profile', ok: true, ...et.profile(etdp, pte) });
  assert.equal(readFileSync(traceOut, 'utf8'), JSON.stringify(et.profileTrace(et.profile(etdp, pte))));
  const text = await runCli(['profile', ptePath, '--etdump', etdpPath]);
  assert.match(text.stdout, /aten::sub\.out/);
});

// The core hands the events over ~1 MiB at a time (src/ops/profile.h
// event_pages), each page parsed as it comes: 2 runs of 10,000 events are
// several pages each, put back whole and in order in their blocks.
test('events paged out of the core come back whole, in order, in their blocks', async () => {
  const { writeETDump: writeMany } = await import('../browser/helpers/etdumps.mjs');
  const dir = join(process.env.ETPACK_ETDUMP_DIR ?? join(SHARED, 'etdump'), 'add_r1');
  const p = et.profile(join(dir, 'add.pte'), writeMany(tmp, 'paged', { runs: 2, events: 10_000 }));
  assert.equal(p.blocks.length, 2);
  for (const b of p.blocks) {
    assert.equal(b.events.length, 10_001);
    assert.ok(b.events.every((e, i) => e.eventIndex === i), 'each event once, in file order');
    assert.equal(b.events.filter((e) => e.operator === 'aten::add.out').length, 10_000);
  }
  assert.equal(p.operators[0].count, 20_000);
});
