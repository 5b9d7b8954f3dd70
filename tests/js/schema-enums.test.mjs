// The schema's enums and the value stream's tags, defined once: the JS
// tables (npm/src/generated/schema-enums.mjs, stream-tags.mjs) come from the
// same sources as the C++ (src/schema/*.fbs through cmake/schema_enums.cmake;
// src/core/value_stream_tags.def), and no enum-typed field is compared with
// a bare number anywhere in src/, npm/src/ or web/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { NPM, ROOT } from './helpers/common.mjs';
import { generate } from '../../scripts/gen-package.mjs';
import { ENUM_SCHEMAS, schemaEnumMembers } from '../../scripts/gen-tables.mjs';

generate();
const enums = await import(join(NPM, 'src/generated/schema-enums.mjs'));
const { STREAM_MAGIC, STREAM_TAGS } = await import(join(NPM, 'src/generated/stream-tags.mjs'));

test('schema enums: upstream\'s values, by member name', () => {
  assert.equal(enums.TensorDataLocation.EXTERNAL, 1);
  assert.equal(enums.DataLocation.SEGMENT, 1);
  assert.equal(enums.TensorShapeDynamism.DYNAMIC_UNBOUND, 2);
  assert.equal(enums.KernelTypes.NONE, 0);  // a union's hidden NONE
  assert.equal(enums.KernelTypes.Null, 1);
  assert.equal(enums.KernelTypes.OptionalTensorList, 11);
  assert.equal(enums.InstructionArguments.FreeCall, 5);
  assert.equal(enums.ValueUnion.Double, 4);
  assert.ok(Object.isFrozen(enums.KernelTypes));
  assert.equal(enums.ScalarType, undefined);  // its own table: src/scalar-type.mjs
});

// The C++ header is written by CMake from the same files; when a native
// build is present, its values are these.
test('schema enums: the C++ header of a native build says the same', (t) => {
  const header = ['build/native', 'build/wasm', 'build/asan', 'build/sanitize'].map((d) => join(ROOT, d, 'generated/schema_enums.h')).find(existsSync);
  if (!header) return t.skip('no native build');
  const cpp = [];
  for (const [, name, body] of readFileSync(header, 'utf8').matchAll(/enum class (\w+) : uint8_t \{([^}]*)\}/g))
    cpp.push([name, [...body.matchAll(/(\w+) = (\d+),/g)].map(([, m, c]) => [m, Number(c)])]);
  assert.deepEqual(cpp, schemaEnumMembers().map(([, name, members]) => [name, members]));
});

test('value stream tags: the core\'s table', () => {
  assert.equal(STREAM_MAGIC, 'ETV1');
  const def = readFileSync(join(ROOT, 'src/core/value_stream_tags.def'), 'utf8');
  const rows = [...def.matchAll(/^STREAM_TAG\(\w+, (\w+), (\d+)\)$/gm)].map(([, n, c]) => [n, Number(c)]);
  assert.deepEqual(Object.entries(STREAM_TAGS), rows);
  assert.deepEqual(rows.map(([, c]) => c), rows.map((_, i) => i));
  // The JS writer has no copy of its own.
  const writer = readFileSync(join(NPM, 'src/marshal/program-stream.mjs'), 'utf8');
  for (const name of Object.keys(STREAM_TAGS)) assert.doesNotMatch(writer, new RegExp(`\\b${name}\\s*=\\s*\\d`), name);
});

// Every field whose type is a schema enum (or a union's `_type`), from the
// .fbs files themselves.
function enumFields() {
  const names = new Set(['ScalarType', ...schemaEnumMembers().map(([, n]) => n)]);
  const unions = new Set(schemaEnumMembers().filter(([k]) => k === 'union').map(([, n]) => n));
  const fields = new Set();
  for (const f of [...ENUM_SCHEMAS, 'scalar_type.fbs']) {
    const text = readFileSync(join(ROOT, 'src/schema', f), 'utf8').replace(/\/\/[^\n]*/g, '');
    for (const [, field, type] of text.matchAll(/(\w+)\s*:\s*([\w.]+)\s*[;=]/g)) {
      const base = type.split('.').pop();
      if (unions.has(base)) fields.add(`${field}_type`);
      else if (names.has(base)) fields.add(field);
    }
  }
  return [...fields];
}

function sources(dir, exts, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) { if (e.name !== 'node_modules' && e.name !== 'dist' && e.name !== 'generated') sources(p, exts, out); }
    else if (exts.some((x) => e.name.endsWith(x))) out.push(p);
  }
  return out;
}

// `get_uint("location") != 1`, `location == 0`, `num(info.location) === 1`,
// `1 === t.shape_dynamism`: a field (or a variable named after it) beside a
// number in a comparison. A sign test (`scalar_type >= 0`: "has one" in a
// table using -1 for none) names no member and is let through.
export function bareComparisons(text, fields) {
  const f = fields.join('|');
  const field = `(?:"(?:${f})"\\)|\\b(?:${f})\\b\\)*)`;
  const op = '(===?|!==?|<=?|>=?)';
  const re = new RegExp(`${field}\\s*${op}\\s*(-?\\d+)|(-?\\d+)\\s*${op}\\s*[\\w.?()]*${field}`, 'g');
  const hits = [];
  text.split('\n').forEach((line, i) => {
    const code = line.replace(/\/\/.*$/, '');
    for (const m of code.matchAll(re)) {
      const [operator, number] = m[1] ? [m[1], m[2]] : [m[4], m[3]];
      if (/^[<>]/.test(operator) && Number(number) === 0) continue;
      hits.push(`${i + 1}: ${m[0]}`);
    }
  });
  return hits;
}

test('no schema enum compared with a bare number in C++ or JS', () => {
  const fields = enumFields();
  assert.ok(fields.includes('location') && fields.includes('shape_dynamism') && fields.includes('val_type') &&
    fields.includes('scalar_type') && fields.includes('device_type'), fields.join(', '));
  // The check itself catches the forms it is for.
  for (const bad of ['if (info.table().get_uint("location") != 1) continue;', 'if (location == 0) {',
    'const external = info !== null && num(info.location) === 1;', 'if (1 === t.shape_dynamism)', 'x.val_type !== 0'])
    assert.equal(bareComparisons(bad, fields).length, 1, bad);
  for (const good of ['if (!info.table().is("location", TensorDataLocation::EXTERNAL)) continue;',
    'num(info.location) === TensorDataLocation.EXTERNAL', 'const location = ref.table().get_uint("location");',
    'if (d->scalar_type >= 0) t.scalar_type = d->scalar_type;'])
    assert.deepEqual(bareComparisons(good, fields), [], good);
  const found = [];
  for (const file of [...sources(join(ROOT, 'src'), ['.cpp', '.h']), ...sources(join(NPM, 'src'), ['.mjs']), ...sources(join(ROOT, 'web'), ['.mjs'])]) {
    for (const hit of bareComparisons(readFileSync(file, 'utf8'), fields)) found.push(`${relative(ROOT, file)}:${hit}`);
  }
  assert.deepEqual(found, []);
});
