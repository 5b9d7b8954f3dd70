// BundledProgram (.bpte) from JS: every vector of ../shared/conformance-bpte
// written byte for byte by serializeBundledProgram and read back exactly by
// deserializeBundledProgram (doubles by their bits, int64 as BigInt beyond
// 2^53), the refused cases as SCHEMA_MISMATCH, inspect and validate of a
// .bpte, and the CLI's bundle / unbundle round trip.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { SHARED, loadApi } from './helpers/common.mjs';
import { runCli } from './helpers/cli.mjs';

const BPTE = process.env.ETPACK_BPTE_CONFORMANCE_DIR ?? join(SHARED, 'conformance-bpte');
const et = await loadApi();
const cases = readdirSync(BPTE).filter((n) => existsSync(join(BPTE, n, 'case.json'))).sort();
const caseOf = (name) => JSON.parse(readFileSync(join(BPTE, name, 'case.json'), 'utf8'));
const bytesOf = (name, file) => new Uint8Array(readFileSync(join(BPTE, name, file)));

function doubleOf(bits) {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(bits));
  return view.getFloat64(0);
}
function bitsOf(d) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, d);
  return view.getBigUint64(0);
}

// case.json's value -> the API's shape (int64 from its exact digits).
function valueOf(name, v) {
  switch (v.type) {
    case 'Tensor':
      return { val_type: 'Tensor', val: { scalar_type: v.scalar_type, sizes: v.sizes, dim_order: v.dim_order, data: bytesOf(name, v.data) } };
    case 'Int': return { val_type: 'Int', val: { int_val: v.int_val_str !== undefined ? BigInt(v.int_val_str) : v.int_val } };
    case 'Double': return { val_type: 'Double', val: { double_val: doubleOf(v.bits) } };
    case 'Bool': return { val_type: 'Bool', val: { bool_val: v.bool_val } };
    default: return { val_type: null, val: null };
  }
}

function bundleOf(name, c) {
  return {
    version: c.version,
    program: bytesOf(name, c.program),
    method_test_suites: c.method_test_suites.map((s) => ({
      method_name: s.method_name,
      test_cases: s.test_cases === null ? null : s.test_cases.map((tc) => ({
        inputs: tc.inputs.map((v) => valueOf(name, v)), expected_outputs: tc.expected_outputs.map((v) => valueOf(name, v)),
      })),
    })),
  };
}

function assertSameValue(got, want, name, at) {
  if (want.type === 'None') {
    assert.equal(got.val_type, null, at);
    return;
  }
  assert.equal(got.val_type, want.type, at);
  const v = got.val;
  if (want.type === 'Tensor') {
    assert.equal(v.scalar_type, want.scalar_type, at);
    assert.deepEqual(v.sizes, want.sizes, at);
    assert.deepEqual(v.dim_order, want.dim_order, at);
    assert.deepEqual(new Uint8Array(v.data), bytesOf(name, want.data), at);
  } else if (want.type === 'Int') {
    assert.equal(BigInt(v.int_val), BigInt(want.int_val_str ?? want.int_val), at);
    if (!Number.isSafeInteger(Number(want.int_val_str ?? want.int_val))) assert.equal(typeof v.int_val, 'bigint', at);
  } else if (want.type === 'Double') {
    const bits = BigInt(want.bits) === 0x8000000000000000n ? 0n : BigInt(want.bits);  // -0.0 is not written: reads +0.0
    assert.equal(bitsOf(v.double_val), bits, at);
  } else {
    assert.equal(v.bool_val, want.bool_val, at);
  }
}

test('serializeBundledProgram writes every vector byte for byte, and refuses what upstream refuses', () => {
  assert.ok(cases.length >= 35, `${cases.length} cases`);
  for (const name of cases) {
    const c = caseOf(name);
    if (c.expect_error) {
      assert.throws(() => et.serializeBundledProgram(bundleOf(name, c)), (e) => e instanceof et.EtpackError && e.code === 'SCHEMA_MISMATCH', name);
      continue;
    }
    const bytes = et.serializeBundledProgram(bundleOf(name, c));
    assert.ok(bytes instanceof Uint8Array, name);
    assert.deepEqual(bytes, bytesOf(name, 'out.bpte'), name);
  }
});

test('deserializeBundledProgram reads every vector back exactly (the sample in both field orders)', () => {
  for (const name of cases) {
    const c = caseOf(name);
    if (c.expect_error) continue;
    for (const file of ['out.bpte', 'bundled_program.bpte', 'out_legacy_flatc.bpte']) {
      if (!existsSync(join(BPTE, name, file))) continue;
      const b = et.deserializeBundledProgram(bytesOf(name, file));
      const at = `${name}/${file}`;
      assert.equal(b.version, c.version, at);
      assert.deepEqual(new Uint8Array(b.program), bytesOf(name, c.program), at);
      assert.equal(b.method_test_suites.length, c.method_test_suites.length, at);
      c.method_test_suites.forEach((s, i) => {
        const suite = b.method_test_suites[i];
        assert.equal(suite.method_name, s.method_name, at);
        assert.equal(suite.test_cases.length, s.test_cases.length, at);
        s.test_cases.forEach((tc, k) => {
          for (const field of ['inputs', 'expected_outputs']) {
            assert.equal(suite.test_cases[k][field].length, tc[field].length, at);
            tc[field].forEach((v, j) => assertSameValue(suite.test_cases[k][field][j], v, name, `${at} ${i}/${k}/${field}[${j}]`));
          }
        });
      });
    }
  }
});

test('-0.0 is written as upstream writes it (omitted: reads back +0.0); NaN and infinities keep their values', () => {
  const program = bytesOf('v01_add_one_case', 'program.pte');
  const d = (x) => ({ val_type: 'Double', val: { double_val: x } });
  const bundle = (x) => ({ version: 1, program, method_test_suites: [{ method_name: 'f', test_cases: [{ inputs: [d(x)], expected_outputs: [] }] }] });
  assert.deepEqual(et.serializeBundledProgram(bundle(-0)), et.serializeBundledProgram(bundle(0)));
  for (const x of [NaN, Infinity, -Infinity, 5e-324, -1.5]) {
    const back = et.deserializeBundledProgram(et.serializeBundledProgram(bundle(x)));
    assert.ok(Object.is(back.method_test_suites[0].test_cases[0].inputs[0].val.double_val, x), String(x));
  }
  assert.throws(() => et.serializeBundledProgram({ version: 1, method_test_suites: [] }), { code: 'SCHEMA_MISMATCH' });
  assert.throws(() => et.deserializeBundledProgram(program), { code: 'MALFORMED_FILE' });
});

test('inspect and validate read a .bpte: the program as a .pte, every case against its method', () => {
  const s = et.inspect(bytesOf('sample', 'bundled_program.bpte'));
  assert.equal(s.format, 'bpte');
  assert.equal(s.programSummary.format, 'pte');
  assert.equal(s.methodTestSuites[0].methodName, 'forward');
  assert.equal(s.methodTestSuites[0].testCases[0].inputs[0].dtype, 'Int');
  assert.equal(et.validate(bytesOf('v01_add_one_case', 'out.bpte')).ok, true);
  const r = et.validate(bytesOf('v17_multi_methods', 'out.bpte'));
  assert.equal(r.ok, false);
  // Suites naming no method are never read by the runtime: warnings (the
  // verdict is the program's: its external tensors need the .ptd).
  assert.deepEqual(r.warnings.filter((f) => f.code === 'BUNDLE_METHOD_NOT_FOUND').map((f) => f.path),
    ['method_test_suites[1].method_name', 'method_test_suites[2].method_name']);
  const short = et.serializeBundledProgram({
    version: 0, program: bytesOf('v01_add_one_case', 'program.pte'),
    method_test_suites: [{ method_name: 'forward', test_cases: [{ inputs: [
      { val_type: 'Tensor', val: { scalar_type: 6, sizes: [1], dim_order: [0], data: new Uint8Array(4) } },
      { val_type: 'Tensor', val: { scalar_type: 6, sizes: [1], dim_order: [0], data: new Uint8Array(2) } },
    ], expected_outputs: [{ val_type: 'Int', val: { int_val: 3 } }] }] }],
  });
  const bad = et.validate(short);
  const codes = bad.errors.map((f) => `${f.code} ${f.path}`);
  assert.ok(codes.includes('BUNDLE_TENSOR_DATA_SHORT method_test_suites[0].test_cases[0].inputs[1].val.data'), codes.join('\n'));
  assert.ok(codes.includes('BUNDLE_VALUE_TYPE_MISMATCH method_test_suites[0].test_cases[0].expected_outputs[0].val'), codes.join('\n'));
  assert.match(bad.errors.find((f) => f.code === 'BUNDLE_TENSOR_DATA_SHORT').message, /suite 'forward', case 0, input 1/);
  // What the runtime reads past is a warning: a third input (forward takes
  // two) and an input's dim order (set_input never reads it).
  const tensor = (dimOrder) => ({ val_type: 'Tensor', val: { scalar_type: 6, sizes: [1], dim_order: dimOrder, data: new Uint8Array(4) } });
  const odd = et.validate(et.serializeBundledProgram({
    version: 0, program: bytesOf('v01_add_one_case', 'program.pte'),
    method_test_suites: [{ method_name: 'forward', test_cases: [{ inputs: [tensor([5]), tensor([0]), { val_type: null, val: null }],
      expected_outputs: [tensor([0])] }] }],
  }));
  assert.equal(odd.ok, true, JSON.stringify(odd.errors));
  assert.deepEqual(odd.warnings.map((f) => `${f.code} ${f.path}`), [
    'BUNDLE_VALUES_UNUSED method_test_suites[0].test_cases[0].inputs',
    'BUNDLE_DIM_ORDER_IGNORED method_test_suites[0].test_cases[0].inputs[0].val.dim_order',
  ]);
});

test('CLI: unbundle then bundle writes the same .bpte; inspect and validate take it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'etpack-bpte-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const name of ['v02_add_three_cases', 'v13_int64_extremes_all_types', 'v18_all_value_types', 'v14_empty_suites_list', 'v15_empty_test_cases', 'v16_empty_inputs_outputs', 'v17_multi_methods', 'v21_zero_size_tensors']) {
    const input = join(BPTE, name, 'out.bpte');
    const out = join(dir, name);
    const un = await runCli(['unbundle', input, '-o', out, '--json']);
    assert.equal(un.status, 0, `${name}: ${un.stderr}`);
    const again = join(dir, `${name}.bpte`);
    const b = await runCli(['bundle', join(out, 'program.pte'), join(out, 'cases.safetensors'), '-o', again]);
    assert.equal(b.status, 0, `${name}: ${b.stderr}`);
    assert.deepEqual(readFileSync(again), readFileSync(input), name);
  }
  const inspected = await runCli(['inspect', join(BPTE, 'v01_add_one_case', 'out.bpte')]);
  assert.equal(inspected.status, 0, inspected.stderr);
  assert.match(inspected.stdout, /bundled program \(\.bpte\)/);
  assert.match(inspected.stdout, /forward: 1 test case/);
  const json = JSON.parse((await runCli(['inspect', join(BPTE, 'v01_add_one_case', 'out.bpte'), '--json'])).stdout);
  assert.equal(json.format, 'bpte');
  const bad = await runCli(['validate', join(BPTE, 'v17_multi_methods', 'out.bpte')]);
  assert.equal(bad.status, 1);
  assert.match(bad.stdout, /BUNDLE_METHOD_NOT_FOUND/);
  // Names with gaps are refused, nothing written.
  const again = join(dir, 'gap.bpte');
  writeFileSync(join(dir, 'not-a-case.txt'), 'x');
  const refused = await runCli(['bundle', join(BPTE, 'v01_add_one_case', 'program.pte'), join(dir, 'not-a-case.txt'), '-o', again]);
  assert.notEqual(refused.status, 0);
  assert.ok(!existsSync(again));
  // An existing output is not replaced without --force.
  const exists = await runCli(['unbundle', join(BPTE, 'v01_add_one_case', 'out.bpte'), '-o', join(dir, 'v02_add_three_cases')]);
  assert.equal(exists.status, 2, exists.stderr);
});
