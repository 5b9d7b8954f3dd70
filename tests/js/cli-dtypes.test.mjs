// unbundle writes each tensor of a test case with the safetensors dtype of
// its ScalarType taken from the core's own table (src/read/safetensors_dtypes.def,
// generated into npm/src/generated/safetensors-dtypes.mjs), not a copy in
// the CLI: the JS side maps exactly as the core reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { NPM, loadApi } from './helpers/common.mjs';
import { safetensorsBytes } from './helpers/safetensors.mjs';
import { generate } from '../../scripts/gen-package.mjs';

generate();
const { SAFETENSORS_DTYPES, scalarSafetensorsDtype } = await import(join(NPM, 'src/generated/safetensors-dtypes.mjs'));
const { SCALAR_TYPES } = await import(join(NPM, 'src/generated/scalar-types.mjs'));
const { dtypeOf } = await import(join(NPM, 'src/cli/bundled.mjs'));
const { readSafetensorsHeader } = await import(join(NPM, 'src/safetensors.mjs'));
const { bytesEntry } = await import(join(NPM, 'src/sources.mjs'));
const et = await loadApi();

test('each dtype of the generated table is read by the core as the ScalarType the table gives', async () => {
  assert.equal(SAFETENSORS_DTYPES.length, 20);
  assert.ok(Object.isFrozen(SAFETENSORS_DTYPES) && Object.isFrozen(SAFETENSORS_DTYPES[0]));
  for (const d of SAFETENSORS_DTYPES) {
    const bytes = safetensorsBytes([{ name: 't', dtype: d.name, shape: [8], bytes: new Uint8Array(d.bits) }]);  // 8 elements
    const { tensors } = await readSafetensorsHeader(bytesEntry(bytes), `${d.name}.safetensors`, et);
    assert.deepEqual({ dtype: tensors.get('t').dtype, scalarType: tensors.get('t').scalarType }, { dtype: d.name, scalarType: d.scalarType }, d.name);
  }
});

test('scalarSafetensorsDtype (unbundle\'s dtypeOf): the 15 ScalarTypes safetensors can hold, and a refusal naming the rest', () => {
  const held = Object.entries(SCALAR_TYPES).filter(([, t]) => scalarSafetensorsDtype(t.code) !== undefined)
    .map(([name, t]) => `${name}:${dtypeOf(t.code, name)}`);
  assert.deepEqual(held, ['BYTE:U8', 'CHAR:I8', 'SHORT:I16', 'INT:I32', 'LONG:I64', 'HALF:F16', 'FLOAT:F32', 'DOUBLE:F64', 'BOOL:BOOL',
    'BFLOAT16:BF16', 'FLOAT8E5M2:F8_E5M2', 'FLOAT8E4M3FN:F8_E4M3', 'UINT16:U16', 'UINT32:U32', 'UINT64:U64']);
  assert.equal(scalarSafetensorsDtype(SCALAR_TYPES.COMPLEXFLOAT.code), undefined);
  assert.equal(scalarSafetensorsDtype(null), undefined, 'the table\'s "no ScalarType" is not a code');
  assert.throws(() => dtypeOf(SCALAR_TYPES.QINT8.code, 'forward.0.input.1'), /^Error: forward\.0\.input\.1: scalar type 12 has no safetensors dtype$/);
});
