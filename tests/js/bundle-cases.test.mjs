// et.testCasesFromSafetensors: the test cases of safetensors files (the
// naming the CLI's bundle reads and unbundle writes), from bytes and from
// Blobs, bundle back to the conformance vectors' exact bytes; refusals carry
// stable codes (INVALID_INPUT for the naming, SAFETENSORS_* for the file).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { SHARED, loadApi } from './helpers/common.mjs';
import { runCli } from './helpers/cli.mjs';

const BPTE = process.env.ETPACK_BPTE_CONFORMANCE_DIR ?? join(SHARED, 'conformance-bpte');
const et = await loadApi();

// A safetensors file of F32 scalars (header padded to 8 bytes), for refusals.
function safetensors(names, metadata = undefined) {
  const head = {};
  names.forEach((name, i) => { head[name] = { dtype: 'F32', shape: [], data_offsets: [4 * i, 4 * i + 4] }; });
  if (metadata) head.__metadata__ = metadata;
  let json = JSON.stringify(head);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const out = new Uint8Array(8 + json.length + 4 * names.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(new TextEncoder().encode(json), 8);
  return out;
}

test('testCasesFromSafetensors + serializeBundledProgram rebuild the vectors byte for byte', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'etpack-cases-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const names = ['v02_add_three_cases', 'v13_int64_extremes_all_types', 'v18_all_value_types', 'v15_empty_test_cases', 'v17_multi_methods', 'v21_zero_size_tensors'];
  for (const name of names) {
    const out = join(dir, name);
    const un = await runCli(['unbundle', join(BPTE, name, 'out.bpte'), '-o', out]);
    assert.equal(un.status, 0, `${name}: ${un.stderr}`);
    const program = new Uint8Array(readFileSync(join(out, 'program.pte')));
    const casesBytes = new Uint8Array(readFileSync(join(out, 'cases.safetensors')));
    const expected = new Uint8Array(readFileSync(join(BPTE, name, 'out.bpte')));
    const fromBytes = await et.testCasesFromSafetensors([casesBytes]);
    assert.deepEqual(et.serializeBundledProgram({ ...fromBytes, program }), expected, `${name} from bytes`);
    const fromBlob = await et.testCasesFromSafetensors([new Blob([casesBytes])]);
    assert.deepEqual(et.serializeBundledProgram({ ...fromBlob, program }), expected, `${name} from a Blob`);
  }
});

test('testCasesFromSafetensors: suites by name, values numbered without gaps', async () => {
  const cases = await et.testCasesFromSafetensors([safetensors(['g.0.input.0', 'f.1.output.0', 'f.0.input.0'])]);
  assert.equal(cases.version, 0);
  assert.deepEqual(cases.method_test_suites.map((s) => [s.method_name, s.test_cases.length]), [['f', 2], ['g', 1]]);
  const f = cases.method_test_suites[0].test_cases;
  assert.deepEqual([f[0].inputs.length, f[0].expected_outputs.length, f[1].inputs.length, f[1].expected_outputs.length], [1, 0, 0, 1]);
  assert.deepEqual(f[0].inputs[0].val.sizes, []);
  assert.equal(f[0].inputs[0].val.data.byteLength, 4);
  const versioned = await et.testCasesFromSafetensors([safetensors(['f.0.input.0'], { 'bundle.version': '7', 'f.0.input.1': 'Int -3' })]);
  assert.equal(versioned.version, 7);
  assert.deepEqual(versioned.method_test_suites[0].test_cases[0].inputs[1], { val_type: 'Int', val: { int_val: -3 } });
});

test('testCasesFromSafetensors refusals carry codes and name the file', async () => {
  const refused = async (files, options, code, pattern) => {
    await assert.rejects(et.testCasesFromSafetensors(files, options), (e) => {
      assert.ok(e instanceof et.EtpackError, String(e));
      if (code instanceof RegExp) assert.match(e.code, code, e.message); else assert.equal(e.code, code, e.message);
      if (pattern) assert.match(e.message, pattern);
      return true;
    });
  };
  await refused([safetensors(['f.0.input.1'])], undefined, 'INVALID_INPUT', /"f\.0\.input\.0" is missing/);
  await refused([safetensors(['f.0.input.0']), safetensors(['f.0.input.0'])], { names: ['a.safetensors', 'b.safetensors'] }, 'INVALID_INPUT', /given twice \(tensor in "a\.safetensors", tensor in "b\.safetensors"\)/);
  await refused([safetensors([], { 'f.0.input.0': 'Int x' })], { names: ['m.safetensors'] }, 'INVALID_INPUT', /m\.safetensors: metadata f\.0\.input\.0/);
  await refused([safetensors([], { 'bundle.version': '-1' })], undefined, 'INVALID_INPUT', /bundle\.version/);
  await refused([safetensors([], { 'bundle.suites': '{}' })], undefined, 'INVALID_INPUT', /bundle\.suites/);
  await refused([new Uint8Array([1, 2, 3])], { names: ['short.safetensors'] }, /^SAFETENSORS_/, /short\.safetensors/);
  await refused('x.safetensors', undefined, 'INVALID_ARGUMENT');
  await refused([42], undefined, 'INVALID_ARGUMENT');
});
