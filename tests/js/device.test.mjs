// What a device needs (issue 26): extract (a delegate's blob, byte for byte,
// from the API and the CLI, never over an input) and the model card
// (inspect's `metadata`: constant methods and their exact values).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, linkSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { ARTIFACTS, CONFORMANCE, NPM, loadApi } from './helpers/common.mjs';
import { runCli } from './helpers/cli.mjs';

const et = await loadApi();
const tmp = mkdtempSync(join(tmpdir(), 'etpack-device-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

// Every .pte of the conformance outputs and artifacts with a delegate.
function delegatedModels() {
  const files = [];
  for (const d of readdirSync(CONFORMANCE, { withFileTypes: true })) {
    if (!d.isDirectory()) continue;
    for (const f of readdirSync(join(CONFORMANCE, d.name))) if (f.endsWith('.pte')) files.push(join(CONFORMANCE, d.name, f));
  }
  for (const f of readdirSync(ARTIFACTS)) if (f.endsWith('.pte')) files.push(join(ARTIFACTS, f));
  return files.filter((f) => {
    try {
      return et.inspect(readFileSync(f)).methods.some((m) => m.delegates.length > 0);
    } catch {
      return false;  // the error vectors' inputs
    }
  });
}

const models = delegatedModels();

test('extract: every delegate of the conformance models is its blob in inspect, byte for byte', () => {
  assert.ok(models.length >= 5, `${models.length} models with delegates`);
  const locations = new Set();
  let count = 0;
  for (const path of models) {
    const file = readFileSync(path);
    const summary = et.inspect(file);
    let n = 0;
    for (const m of summary.methods) {
      for (const d of m.delegates) {
        const expected = sha256(file.subarray(d.offset, d.offset + d.size));
        const got = et.extract(file, { delegate: n });
        assert.equal(sha256(got.bytes), expected, `${path} delegate ${n}`);
        assert.equal(got.bytes.length, d.size);
        assert.deepEqual([got.method, got.index, got.id, got.location, got.offset], [m.name, d.index, d.id, d.location, d.offset]);
        // From the file on disk (only its head is read), within the method.
        const fromFile = et.extract(path, { method: m.name, delegate: d.index, output: 'artifact' });
        assert.equal(sha256(fromFile.bytes.toBytes()), expected);
        locations.add(d.location);
        ++n;
        ++count;
      }
    }
    assert.throws(() => et.extract(file, { delegate: n }), { code: 'INVALID_ARGUMENT', message: /no delegate/ });
  }
  assert.deepEqual([...locations].sort(), ['inline', 'segment']);
  assert.ok(count >= models.length);
});

test('extract: options are checked, a missing method is named', () => {
  const file = readFileSync(models[0]);
  assert.throws(() => et.extract(file, { delegate: -1 }), { code: 'INVALID_ARGUMENT' });
  assert.throws(() => et.extract(file, { delegat: 0 }), { code: 'INVALID_ARGUMENT', message: /did you mean "delegate"/ });
  assert.throws(() => et.extract(file, { delegate: 0, method: 'nope' }), { code: 'INVALID_ARGUMENT', message: /nope/ });
});

test('extract CLI: writes the blob, refuses its input and existing files', async () => {
  const source = models.find((p) => p.includes('06_delegates_extracted_dedup')) ?? models[0];
  const file = readFileSync(source);
  const d = et.inspect(file).methods.flatMap((m) => m.delegates)[0];
  const out = join(tmp, 'blob.bin');
  const r = await runCli(['extract', source, '--delegate', '0', '-o', out, '--json']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(sha256(readFileSync(out)), sha256(file.subarray(d.offset, d.offset + d.size)));
  const doc = JSON.parse(r.stdout);
  assert.deepEqual([doc.command, doc.ok, doc.bytes, doc.location], ['extract', true, d.size, d.location]);
  // The shipped schema describes it: every required field, no undeclared one.
  const schema = JSON.parse(readFileSync(join(NPM, 'schema', 'cli-output.schema.json'), 'utf8'));
  const written = schema.$defs.extractWritten;
  for (const k of written.required) assert.ok(Object.hasOwn(doc, k), k);
  for (const k of Object.keys(doc)) assert.ok(k === 'schema' || Object.hasOwn(written.properties, k), k);
  assert.ok(schema.properties.command.enum.includes('extract'));

  // The input, under its own name or a hard link to it: refused, untouched.
  const copy = join(tmp, 'model.pte');
  writeFileSync(copy, file);
  const link = join(tmp, 'link.pte');
  linkSync(copy, link);
  for (const target of [copy, link]) {
    const refused = await runCli(['extract', copy, '--delegate', '0', '-o', target, '--force']);
    assert.equal(refused.status, 2, refused.stderr);
    assert.match(refused.stderr, /OUTPUT_IS_INPUT/);
    assert.deepEqual(readFileSync(copy), file);
  }
  const exists = await runCli(['extract', copy, '--delegate', '0', '-o', out]);
  assert.equal(exists.status, 2, exists.stderr);
  assert.match(exists.stderr, /OUTPUT_EXISTS/);
  const missing = join(tmp, 'none.bin');
  const past = await runCli(['extract', copy, '--delegate', '99', '-o', missing]);
  assert.notEqual(past.status, 0);
  assert.match(past.stderr, /no delegate 99/);
  assert.equal(existsSync(missing), false);
  const usage = await runCli(['extract', copy, '-o', missing]);
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /--delegate/);
});

// A program with constant methods beside a real one (upstream's JSON shape).
function cardProgram() {
  const FLOAT = 6;
  const plan = (name, values, outputs, inputs = []) => ({
    name, values, inputs, outputs,
    chains: [{ inputs: [], outputs: [], instructions: [] }],
    operators: [], delegates: [], non_const_buffer_sizes: [0],
  });
  const int = (v) => ({ val_type: 'Int', val: { int_val: v } });
  return {
    version: 0,
    execution_plan: [
      plan('forward', [{ val_type: 'Tensor', val: { scalar_type: FLOAT, sizes: [1], dim_order: [0] } }], [0]),
      plan('get_max_seq_len', [int(128)], [0]),
      plan('get_eos_ids', [int(-9223372036854775808n), int(2n ** 53n + 1n)], [0, 1]),
      plan('get_logits_scale', [{ val_type: 'Double', val: { double_val: 0.1 } }], [0]),
      plan('get_use_kv_cache', [{ val_type: 'Bool', val: { bool_val: true } }], [0]),
      plan('get_model_name', [{ val_type: 'String', val: { string_val: '__proto__' } }], [0]),
      plan('__proto__', [int(7), { val_type: 'DoubleList', val: { items: [-0, 1e-310] } }], [0, 1]),
      plan('echo', [int(1)], [0], [0]),  // returns its input: not a constant
    ],
    constant_buffer: [], backend_delegate_data: [], segments: [],
  };
}

test('inspect metadata: constant methods with exact values, shown first by the CLI', async () => {
  const { pte } = et.serializeForExecutorch({ program: cardProgram() });
  const summary = et.inspect(pte);
  const m = summary.metadata;
  assert.deepEqual(Object.keys(m), ['get_max_seq_len', 'get_eos_ids', 'get_logits_scale', 'get_use_kv_cache', 'get_model_name', '__proto__']);
  assert.equal(m.get_max_seq_len, 128);
  assert.deepEqual(m.get_eos_ids, [-9223372036854775808n, 9007199254740993n]);
  assert.ok(Object.is(m.get_logits_scale, 0.1));
  assert.equal(m.get_use_kv_cache, true);
  assert.equal(m.get_model_name, '__proto__');
  assert.ok(Object.hasOwn(m, '__proto__'));
  assert.equal(m.__proto__[0], 7);  // an own key, not the prototype
  assert.ok(Object.is(m.__proto__[1][0], -0));
  assert.ok(Object.is(m.__proto__[1][1], 1e-310));

  const path = join(tmp, 'card.pte');
  writeFileSync(path, pte);
  const json = await runCli(['inspect', path, '--json']);
  assert.equal(json.status, 0, json.stderr);
  assert.match(json.stdout.replace(/\s+/g, ''), /"get_eos_ids":\[-9223372036854775808,9007199254740993\]/);
  const human = await runCli(['inspect', path]);
  assert.equal(human.status, 0, human.stderr);
  const card = human.stdout.indexOf('Metadata (6)');
  assert.ok(card > 0 && card < human.stdout.indexOf('Methods ('), human.stdout);
  assert.match(human.stdout, /get_max_seq_len\s+128/);
  assert.match(human.stdout, /get_eos_ids\s+\[-9223372036854775808, 9007199254740993\]/);
});

test('inspect metadata: empty for a model without constant methods', () => {
  assert.deepEqual(et.inspect(readFileSync(join(ARTIFACTS, 'add.pte'))).metadata, {});
});

test('inspect memory.methodAllocator: the measured minimum for add.pte (x86_64 376, ARM 32-bit 224), in the CLI too', async () => {
  const m = et.inspect(readFileSync(join(ARTIFACTS, 'add.pte'))).methods[0].memory.methodAllocator;
  assert.deepEqual(m['64-bit'], { withTempAllocator: 376, withoutTempAllocator: 548 });
  assert.deepEqual(m.arm32, { withTempAllocator: 224, withoutTempAllocator: 320 });
  assert.match(m.runtime, /cff6f4dd/);
  const r = await runCli(['inspect', join(ARTIFACTS, 'add.pte')]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /method allocator: 64-bit 376 bytes \(548 without a temp allocator\), arm32 224 bytes/);
});

// Measured on the runtime (cff6f4dd, x86_64) by bisection, like add.pte: a
// program with every value kind (lists, strings, tensor lists, optional
// tensor lists, bounded dynamic shapes) and two chains of kernel calls; and
// a model with EXTERNAL constants (11_external_constants_only, repacked to
// carry the runtime's constant placeholder) loaded with its .ptd.
test('inspect memory.methodAllocator: every value kind and external constants match the runtime (64-bit)', () => {
  const FLOAT = 6;
  const planned = (off, sizes, dyn = 0) => ({ val_type: 'Tensor', val: { scalar_type: FLOAT, sizes, dim_order: sizes.map((_, i) => i), shape_dynamism: dyn,
    allocation_info: { memory_id: 1, memory_offset_low: off, memory_offset_high: 0 } } });
  const values = [
    planned(0, [2, 3]), planned(32, [2, 3, 1], 1), planned(64, [5], 1),
    { val_type: 'Int', val: { int_val: 3 } }, { val_type: 'Int', val: { int_val: 4 } },
    { val_type: 'IntList', val: { items: [3, 4, 3] } }, { val_type: 'String', val: { string_val: 'hello' } },
    { val_type: 'BoolList', val: { items: [true, false] } }, { val_type: 'DoubleList', val: { items: [1.5] } },
    { val_type: 'TensorList', val: { items: [0, 1] } }, { val_type: 'OptionalTensorList', val: { items: [0, -1, 2] } },
    { val_type: 'Null', val: {} }, { val_type: 'Double', val: { double_val: 0.5 } }, { val_type: 'Bool', val: { bool_val: true } },
  ];
  const k = (op, args) => ({ instr_args_type: 'KernelCall', instr_args: { op_index: op, args } });
  const program = {
    version: 0,
    execution_plan: [{
      name: 'forward', values, inputs: [0, 3], outputs: [1],
      chains: [
        { inputs: [0], outputs: [1], instructions: [k(0, [0, 1, 5, 6, 1]), k(1, [9, 10, 7, 8, 12, 13, 11, 2]), k(0, [2, 0, 1])] },
        { inputs: [], outputs: [], instructions: [k(1, [0])] },
      ],
      operators: [{ name: 'aten::foo', overload: 'out' }, { name: 'aten::bar', overload: '' }],
      delegates: [], non_const_buffer_sizes: [0, 128],
    }],
    constant_buffer: [{ storage: [] }],
  };
  const { pte } = et.serializeForExecutorch({ program });
  assert.deepEqual(et.inspect(pte).methods[0].memory.methodAllocator['64-bit'], { withTempAllocator: 1048, withoutTempAllocator: 1530 });

  const dir = join(CONFORMANCE, '11_external_constants_only');
  const repacked = et.repack(join(dir, 'out.pte'), { data: { 'model.ptd': join(dir, 'model.ptd') } });
  assert.deepEqual(et.inspect(repacked.pte).methods[0].memory.methodAllocator['64-bit'], { withTempAllocator: 1808, withoutTempAllocator: 2382 });
});
