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
import { NPM } from './helpers/common.mjs';
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

test('the checker itself notices a difference', { timeout: 120_000 }, (t) => {
  const dir = tsProject(t);
  const r = tsc(dir, 'wrong', BROWSER, { 'wrong.ts': checker('executorch-pack', ['default', 'EtpackError', 'Artifact', 'NamedDataStore'], ['version']) });
  assert.notEqual(r.status, 0);
  assert.match(r.output, /NamedDataStore/);  // declared only as a type
  assert.match(r.output, /'Members'.*missing|missing.*'Members'/);  // members the literal lacks
});
