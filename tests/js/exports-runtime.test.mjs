// What the .d.ts files declare is what the entries export at run time, in
// both directions: top-level exports of each entry, and the members of the
// object init() resolves to. The comparison is done by the compiler: an
// object literal with exactly the runtime names must fit
// `Record<keyof typeof module, true>` (a declared name missing at run time
// and a runtime name not declared are both errors).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, NPM } from './helpers/common.mjs';
import { BROWSER, NODE, tsProject, tsc } from './helpers/typescript.mjs';

const ENTRIES = [
  ['node', 'executorch-pack', 'index.node.mjs', NODE],
  ['browser', 'executorch-pack', 'index.browser.mjs', BROWSER],
  ['inline', 'executorch-pack/inline', 'index.inline.mjs', BROWSER],
];

function checker(specifier, topLevel, members) {
  const record = (names) => `{ ${names.map((n) => `${JSON.stringify(n)}: true`).join(', ')} }`;
  return `import * as entry from '${specifier}';
import type { ExecutorchPack } from '${specifier}';
// Value exports only (types are erased).
type Values = { [K in keyof typeof entry]: true };
export const exported: Values = ${record(topLevel)};
type Members = { [K in keyof ExecutorchPack]: true };
export const members: Members = ${record(members)};
`;
}

test('every entry exports at run time exactly what its types declare', { timeout: 180_000 }, async (t) => {
  const dir = tsProject(t);
  const wasmBinary = readFileSync(join(NPM, 'dist/etpack.wasm'));
  for (const [name, specifier, file, options] of ENTRIES) {
    const entry = await import(join(NPM, file));
    const et = await entry.default({ wasmBinary });
    // `_internal` is for the package's own layers (CLI, streaming), not the API.
    const members = Object.keys(et).filter((k) => !k.startsWith('_'));
    assert.ok(members.includes('validate') && members.includes('NamedDataStore'));
    const r = tsc(dir, name, options, { [`${name}.ts`]: checker(specifier, Object.keys(entry), members) });
    assert.equal(r.status, 0, `${name} entry (${file}): declared and runtime exports differ\n${r.output}`);
  }
});

// Own and inherited names of an object, symbols written as TypeScript
// computed keys (`[Symbol.dispose]`).
function namesOf(object) {
  const names = new Set();
  for (let o = object; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    // The package's own protocol symbol (how inputs are read) is internal.
    for (const k of Reflect.ownKeys(o)) if (k !== 'constructor' && !String(k.description ?? '').startsWith('executorch-pack.')) names.add(k);
  }
  return [...names].map((k) => {
    if (typeof k === 'string') return JSON.stringify(k);
    const well = Object.getOwnPropertyNames(Symbol).find((n) => Symbol[n] === k);
    assert.ok(well, `a symbol key that is not well-known: ${String(k)}`);
    return `[Symbol.${well}]`;
  });
}

test('the classes have exactly the members their types declare', { timeout: 120_000 }, async (t) => {
  const dir = tsProject(t);
  const { default: init, FileSource } = await import(join(NPM, 'index.node.mjs'));
  const et = await init();
  const artifact = et.repack(join(ARTIFACTS, 'add.pte'), { output: 'artifact' }).pte;
  const store = new et.NamedDataStore();
  const file = new FileSource(join(ARTIFACTS, 'add.pte'));
  const serializer = new et.FlatTensorSerializer();
  const record = (names) => `{ ${names.map((n) => `${n}: true`).join(', ')} }`;
  const source = `import type { Artifact, NamedDataStore, FileSource, FlatTensorSerializer, EtpackError } from 'executorch-pack';
type All<T> = { [K in keyof T]: true };  // optional members (Error.cause) may be absent
export const artifact: All<Artifact> = ${record(namesOf(artifact))};
export const store: All<NamedDataStore> = ${record(namesOf(store))};
export const file: All<FileSource> = ${record(namesOf(file))};
export const serializer: All<FlatTensorSerializer> = ${record(namesOf(serializer))};
export const error: All<EtpackError> = ${record(namesOf(new et.EtpackError('INTERNAL', 'x')).filter((n) => n !== '"toString"'))};
`;
  store.delete();
  file.close();
  const r = tsc(dir, 'classes', NODE, { 'classes.ts': source });
  assert.equal(r.status, 0, `declared and runtime members differ\n${r.output}`);
});

test('the checker itself notices a difference', { timeout: 120_000 }, (t) => {
  const dir = tsProject(t);
  const r = tsc(dir, 'wrong', BROWSER, { 'wrong.ts': checker('executorch-pack', ['default', 'EtpackError', 'Artifact', 'NamedDataStore'], ['version']) });
  assert.notEqual(r.status, 0);
  assert.match(r.output, /NamedDataStore/);  // declared only as a type
  assert.match(r.output, /'Members'.*missing|missing.*'Members'/);  // members the literal lacks
});
