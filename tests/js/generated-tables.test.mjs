// The JS tables generated from the C++ ones (scripts/gen-package.mjs):
// npm/src/generated/file-kinds.mjs from src/format/file_kinds.def and
// scalar-types.mjs from src/model/scalar_types.def + scalar_type.fbs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, CONFORMANCE, NPM } from './helpers/common.mjs';
import { generate } from '../../scripts/gen-package.mjs';

generate();
const { DEFAULT_KIND, FILE_KINDS, INSPECTED_KINDS, fileKindOf } = await import(join(NPM, 'src/generated/file-kinds.mjs'));
const { SCALAR_TYPES, scalarTypeName } = await import(join(NPM, 'src/generated/scalar-types.mjs'));

test('FILE_KINDS: one frozen row per kind, as the core reads them', () => {
  assert.deepEqual(FILE_KINDS.map((k) => k.kind), ['pte', 'ptd', 'bpte', 'etdp']);
  const [pte, ptd, bpte] = FILE_KINDS;
  // The ETDump (issue 31): size-prefixed, so its identifier sits at 8; no extended header.
  assert.deepEqual({ ...FILE_KINDS.find((k) => k.kind === 'etdp') }, { kind: 'etdp', extension: '.etdp', identifier: 'ED00',
    identifierOffset: 8, headerMagic: '', headerOffset: 0, headerRequired: false, probeBytes: 12, inspected: false });
  assert.deepEqual({ ...pte }, { kind: 'pte', extension: '.pte', identifier: 'ET12', identifierOffset: 4,
    headerMagic: 'eh00', headerOffset: 8, headerRequired: false, probeBytes: 64, inspected: true });
  assert.deepEqual({ ...ptd }, { kind: 'ptd', extension: '.ptd', identifier: 'FT01', identifierOffset: 4,
    headerMagic: 'FH01', headerOffset: 8, headerRequired: true, probeBytes: 56, inspected: true });
  // No extended header: a .bpte is one flatbuffer, read whole.
  assert.deepEqual({ ...bpte }, { kind: 'bpte', extension: '.bpte', identifier: 'BP08', identifierOffset: 4,
    headerMagic: '', headerOffset: 0, headerRequired: false, probeBytes: 8, inspected: true });
  assert.ok(Object.isFrozen(FILE_KINDS) && Object.isFrozen(pte));
});

test('INSPECTED_KINDS: the kinds inspect and validate read, from the rows\' inspected column', async () => {
  assert.deepEqual(INSPECTED_KINDS, ['pte', 'ptd', 'bpte']);
  assert.equal(DEFAULT_KIND, 'pte');
  assert.ok(Object.isFrozen(INSPECTED_KINDS));
  // inspect's `kind` option is that list.
  const { SPECS } = await import(join(NPM, 'src/options.mjs'));
  for (const kind of INSPECTED_KINDS) assert.equal(SPECS.inspect.kind(kind, 'kind'), kind);
  assert.throws(() => SPECS.inspect.kind('etdp', 'options.kind'), /must be one of pte, ptd, bpte, got etdp/);
});

test('fileKindOf tells real files apart by their identifier', () => {
  const pte = readFileSync(join(ARTIFACTS, 'arduino_add.pte'));  // has segments, so an eh00 header
  const ptd = readFileSync(join(CONFORMANCE, '13_everything', 'model.ptd'));
  assert.equal(fileKindOf(new Uint8Array(pte)), 'pte');
  assert.equal(fileKindOf(ptd.subarray(0, 8)), 'ptd');
  assert.equal(fileKindOf(ptd.subarray(0, 7)), null, 'too short to carry an identifier');
  assert.equal(fileKindOf(new Uint8Array(64)), null);
  // Each kind's header magic sits where the row says.
  for (const [bytes, kind] of [[pte, FILE_KINDS[0]], [ptd, FILE_KINDS[1]]]) {
    assert.equal(bytes.subarray(kind.headerOffset, kind.headerOffset + 4).toString('latin1'), kind.headerMagic);
  }
});

test('SCALAR_TYPES: schema names, codes and element sizes', () => {
  assert.equal(Object.keys(SCALAR_TYPES).length, 30);
  assert.deepEqual(SCALAR_TYPES.FLOAT, { code: 6, name: 'Float', elementSize: 4 });
  assert.deepEqual(SCALAR_TYPES.BFLOAT16, { code: 15, name: 'BFloat16', elementSize: 2 });
  assert.deepEqual(SCALAR_TYPES.COMPLEXDOUBLE, { code: 10, name: 'ComplexDouble', elementSize: 16 });
  assert.deepEqual(SCALAR_TYPES.UINT64, { code: 29, name: 'UInt64', elementSize: 8 });
  assert.equal(scalarTypeName(11), 'BOOL');
  assert.equal(scalarTypeName(30), undefined);
  // Codes are 0..29 without gaps, as the .fbs enum.
  assert.deepEqual(Object.values(SCALAR_TYPES).map((t) => t.code), [...Array(30).keys()]);
  assert.ok(Object.isFrozen(SCALAR_TYPES) && Object.isFrozen(SCALAR_TYPES.FLOAT));
});
