// readETDump / profile / profileTrace and `executorch-pack profile` against
// every recording in ../shared/etdump (or $ETPACK_ETDUMP_DIR): the decode
// equals flatc's (defaults filled in) field for field with 64-bit values
// exact, every event joins as the runtime-side join (NAME.events.tsv) says,
// the statistics equal those computed here from that list, and the trace
// export carries the trace-event format's required fields.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NPM, SHARED, loadApi, parseLossless } from './helpers/common.mjs';
import { runCli } from './helpers/cli.mjs';

const ROOT = process.env.ETPACK_ETDUMP_DIR ?? join(SHARED, 'etdump');
const et = await loadApi();
const tmp = mkdtempSync(join(tmpdir(), 'etpack-etdump-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

const recordings = readdirSync(ROOT, { withFileTypes: true }).filter((d) => d.isDirectory()).flatMap((d) => {
  const dir = join(ROOT, d.name);
  const files = readdirSync(dir);
  const pte = files.find((f) => f.endsWith('.pte'));
  return files.filter((f) => f.endsWith('.etdp')).map((f) => ({
    dir, base: f.slice(0, -'.etdp'.length), etdp: join(dir, f), pte: pte ? join(dir, pte) : null,
    ptds: files.filter((p) => p.endsWith('.ptd')).map((p) => join(dir, p)),
  }));
});

function tsv(path) {
  const [header, ...lines] = readFileSync(path, 'utf8').trimEnd().split('\n');
  const keys = header.split('\t');
  return lines.map((l) => Object.fromEntries(l.split('\t').map((v, i) => [keys[i], v])));
}

// numpy.percentile's default (linear) from its definition.
function percentile(values, p) {
  const v = [...values].sort((a, b) => a - b);
  const rank = (v.length - 1) * p / 100;
  const lo = Math.floor(rank);
  const hi = Math.min(lo + 1, v.length - 1);
  return v[lo] + (v[hi] - v[lo]) * (rank - lo);
}

test('every recording decodes to flatc\'s decode with defaults, 64-bit values exact', () => {
  assert.ok(recordings.length >= 18, ROOT);
  for (const r of recordings) {
    const expected = parseLossless(readFileSync(join(r.dir, `${r.base}.defaults.json`), 'utf8'));
    const fromBytes = et.readETDump(new Uint8Array(readFileSync(r.etdp)));
    assert.deepEqual(fromBytes, expected, r.base);
    assert.deepEqual(et.readETDump(r.etdp), expected, `${r.base} by path`);
  }
  // A program output's DebugEvent stores chain index 2^64-1: a BigInt, not 1.8e19.
  const debug = et.readETDump(join(ROOT, 'add_r1_debug', 'add_r1_debug.etdp'));
  const output = debug.run_data[1].events.find((e) => e.debug_event).debug_event;
  assert.equal(output.chain_index, 2n ** 64n - 1n);
  assert.equal(output.debug_entry.tensor.scalar_type, 'FLOAT');
  // The upstream sample: kernel-internal events as in the file.
  const sample = et.readETDump(join(ROOT, 'upstream_sample', 'etdump.etdp'));
  assert.equal(sample.run_data[1].events[0].profile_event.name, 'native_call_convolution.out');
  assert.equal(sample.run_data[1].events[0].profile_event.chain_index, 0);
});

test('every recording joins to its program as the runtime-side join says; statistics from the event lists', () => {
  let joined = 0;
  let events = 0;
  for (const r of recordings.filter((x) => x.pte)) {
    const profile = et.profile(r.etdp, r.pte, { data: r.ptds });
    assert.deepEqual(profile.warnings, [], r.base);
    const rows = tsv(join(r.dir, `${r.base}.events.tsv`));
    const durations = new Map();
    for (const row of rows) {
      const block = profile.blocks[Number(row.run_index)];
      const where = `${r.base} block ${row.run_index} event ${row.event_index}`;
      assert.equal(block.name, row.run_name, where);
      assert.equal(block.method, row.method, where);
      assert.equal(block.run, row.exec_run === '' ? null : Number(row.exec_run), where);
      const e = block.events.find((x) => x.eventIndex === Number(row.event_index));
      assert.ok(e, where);
      assert.equal(e.name, row.name, where);
      assert.equal(e.chain, Number(row.chain_index), where);
      assert.equal(e.instruction, Number(row.instruction_id), where);
      assert.equal(BigInt(e.startTime), BigInt(row.start_time), where);
      assert.equal(BigInt(e.endTime), BigInt(row.end_time), where);
      assert.equal(BigInt(e.duration), BigInt(row.duration), where);
      assert.equal(e.type, row.instr_type === '-' ? null : row.instr_type, where);
      assert.equal(e.operator, row.instr_type === 'KernelCall' ? row.target : undefined, where);
      assert.equal(e.delegate, row.instr_type === 'DelegateCall' ? row.target : undefined, where);
      if (row.delegate_debug_id_int !== '') assert.equal(e.delegateDebugIdInt, Number(row.delegate_debug_id_int), where);
      if (row.delegate_debug_id_str !== '') assert.equal(e.delegateDebugIdStr, row.delegate_debug_id_str, where);
      if (row.delegate_debug_metadata_hex !== '') assert.equal(e.delegateDebugMetadata, row.delegate_debug_metadata_hex, where);
      // Internal events (no instruction name of their own) nest under their
      // instruction's own event: the next one in the file with their ids.
      if (e.internal) {
        const parent = block.events[e.parent];
        assert.ok(parent && parent.chain === e.chain && parent.instruction === e.instruction && !parent.internal, where);
        assert.ok(parent.eventIndex > e.eventIndex, where);
        assert.ok(!block.events.slice(block.events.indexOf(e) + 1, e.parent)
          .some((x) => !x.internal && x.chain === e.chain && x.instruction === e.instruction), where);
      }
      ++events;
      if (row.run_name === 'Execute' && (row.name === 'OPERATOR_CALL' || row.name === 'DELEGATE_CALL')) {
        const key = `${row.instr_type}:${row.target}`;
        durations.set(key, [...(durations.get(key) ?? []), Number(row.duration)]);
      }
    }
    assert.equal(profile.blocks.reduce((n, b) => n + b.events.length, 0), rows.length, r.base);
    const stats = [...profile.operators.map((s) => ['KernelCall', s]), ...profile.delegates.map((s) => ['DelegateCall', s])];
    assert.equal(stats.length, durations.size, r.base);
    for (const [type, s] of stats) {
      const d = durations.get(`${type}:${s.name}`);
      const total = d.reduce((a, b) => a + b, 0);
      assert.deepEqual({ count: s.count, total: s.total, min: s.min, max: s.max, methods: s.methods },
        { count: d.length, total, min: Math.min(...d), max: Math.max(...d), methods: ['forward'] }, `${r.base} ${s.name}`);
      for (const p of [10, 50, 90]) assert.ok(Math.abs(s[`p${p}`] - percentile(d, p)) < 1e-9, `${r.base} ${s.name} p${p}`);
      assert.ok(Math.abs(s.mean - total / d.length) < 1e-9);
    }
    ++joined;
  }
  assert.ok(joined >= 17);
  assert.ok(events >= 299);
});

test('profile takes the CLI\'s order (pte, etdump) and the earlier one (etdump, pte), with the same result', () => {
  const r = recordings.find((x) => x.base === 'e13_everything_r2_stubdelegate');
  const cliOrder = et.profile(r.pte, r.etdp, { methods: 'forward' });
  const oldOrder = et.profile(r.etdp, r.pte, { methods: 'forward' });
  assert.ok(cliOrder.blocks.length > 0);
  assert.deepEqual(cliOrder, oldOrder);
  // Two programs: the one given second is read as the ETDump, and refused as one.
  assert.throws(() => et.profile(r.pte, r.pte), (e) => e?.name === 'EtpackError' && e.code !== 'INTERNAL');
});

test('the trace export has the trace-event format\'s required fields and nests by time', () => {
  const r = recordings.find((x) => x.base === 'e13_everything_r2_stubdelegate');
  const profile = et.profile(r.etdp, r.pte);
  const trace = et.profileTrace(profile);
  const text = JSON.stringify(trace);  // what --trace-out writes: plain JSON (no BigInt)
  const parsed = JSON.parse(text);
  assert.ok(Array.isArray(parsed.traceEvents) && parsed.traceEvents.length > 0);
  let complete = 0;
  for (const e of parsed.traceEvents) {
    for (const k of ['ph', 'pid', 'tid', 'name']) assert.ok(Object.hasOwn(e, k), `${k} in ${JSON.stringify(e)}`);
    assert.ok(['X', 'M'].includes(e.ph));
    assert.equal(typeof e.name, 'string');
    assert.ok(Number.isInteger(e.pid) && Number.isInteger(e.tid));
    if (e.ph === 'X') {
      ++complete;
      assert.equal(typeof e.ts, 'number');
      assert.ok(typeof e.dur === 'number' && e.dur >= 0);
    }
  }
  const timed = profile.blocks.reduce((n, b) => n + b.events.length, 0);
  assert.equal(complete, timed + profile.blocks.filter((b) => b.events.length).length, 'one X per event and per block');
  const add = parsed.traceEvents.find((e) => e.name === 'aten::add.out');
  assert.equal(add.args.operator, 'aten::add.out');
  assert.equal(add.ts, Number(profile.blocks[1].events[0].startTime) / 1000);
});

test('methods named by the caller, and coded errors', () => {
  const r = recordings.find((x) => x.base === 'add_r2');
  const named = et.profile(r.etdp, r.pte, { methods: 'forward' });
  assert.deepEqual(named.blocks.map((b) => b.methodFrom), ['named', 'named', 'named']);
  const some = et.profile(r.etdp, r.pte, { methods: [null, 'forward'] });
  assert.deepEqual(some.blocks.map((b) => b.methodFrom), ['only method', 'named', 'instructions']);
  assert.throws(() => et.profile(r.etdp, r.pte, { methods: 'backward' }),
    { name: 'EtpackError', code: 'INVALID_ARGUMENT', message: /block 0: the program has no method 'backward'/ });
  assert.throws(() => et.profile(r.etdp, r.pte, { methods: 3 }), { code: 'INVALID_ARGUMENT' });
  assert.throws(() => et.profile(r.etdp, r.pte, { method: 'x' }), { code: 'INVALID_ARGUMENT' });
  assert.throws(() => et.readETDump(new Uint8Array(3)), { code: 'MALFORMED_FILE' });
  assert.throws(() => et.readETDump(readFileSync(r.pte)), { code: 'MALFORMED_FILE', message: /at byte offset/ });
  const bytes = new Uint8Array(readFileSync(r.etdp));
  bytes[11] = '1'.charCodeAt(0);
  assert.throws(() => et.readETDump(bytes), { code: 'UNSUPPORTED_VERSION', message: /'ED01' is not the supported 'ED00'/ });
});

test('executorch-pack profile: table, --json, --trace-out (never over an input)', async () => {
  const r = recordings.find((x) => x.base === 'e13_everything_r2');
  const text = await runCli(['profile', r.pte, ...r.ptds, '--etdump', r.etdp]);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /aten::mul\.out/);
  assert.match(text.stdout, /XnnpackBackend/);
  const out = join(tmp, 'trace.json');
  const json = await runCli(['profile', r.pte, '--etdump', r.etdp, '--json', '--trace-out', out]);
  assert.equal(json.status, 0, json.stderr);
  const doc = parseLossless(json.stdout);
  assert.equal(doc.command, 'profile');
  assert.equal(doc.schema, 1);
  assert.deepEqual(doc.blocks.map((b) => b.method), ['forward', 'forward', 'forward']);
  const trace = JSON.parse(readFileSync(out, 'utf8'));
  assert.ok(trace.traceEvents.some((e) => e.ph === 'X' && e.name === 'aten::add.out'));
  const again = await runCli(['profile', r.pte, '--etdump', r.etdp, '--trace-out', out]);
  assert.equal(again.status, 2, 'an existing file is not replaced without --force');
  const copy = join(tmp, 'copy.etdp');
  writeFileSync(copy, readFileSync(r.etdp));
  const over = await runCli(['profile', r.pte, '--etdump', copy, '--trace-out', copy, '--force']);
  assert.equal(over.status, 2, over.stderr);
  assert.deepEqual(readFileSync(copy), readFileSync(r.etdp), 'the input is never written');
  const usage = await runCli(['profile', r.pte]);
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /--etdump/);
  assert.ok(existsSync(join(NPM, 'src', 'cli', 'commands', 'profile.mjs')));
});
