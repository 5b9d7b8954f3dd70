// ScalarType constants: every entry exports the same frozen name -> code
// table, and the committed npm/src/scalar-type.mjs is what
// scripts/gen-package.mjs derives from src/schema/scalar_type.fbs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NPM } from './helpers/common.mjs';
import { scalarTypeModule } from '../../scripts/gen-package.mjs';

test('npm/src/scalar-type.mjs is generated from the schema and up to date', () => {
  assert.equal(readFileSync(join(NPM, 'src/scalar-type.mjs'), 'utf8'), scalarTypeModule(),
    'run `node scripts/gen-package.mjs` and commit npm/src/scalar-type.mjs');
});

test('every entry exports ScalarType: frozen, codes as in the schema', async () => {
  const tables = [];
  for (const file of ['index.node.mjs', 'index.browser.mjs', 'index.inline.mjs']) {
    const { ScalarType } = await import(join(NPM, file));
    assert.ok(Object.isFrozen(ScalarType), file);
    tables.push(ScalarType);
  }
  assert.equal(tables[0], tables[1]);
  assert.equal(tables[0], tables[2]);
  const { ScalarType } = await import(join(NPM, 'index.node.mjs'));
  assert.equal(ScalarType.BYTE, 0);
  assert.equal(ScalarType.FLOAT, 6);
  assert.equal(ScalarType.BOOL, 11);
  assert.equal(ScalarType.BFLOAT16, 15);
  assert.equal(ScalarType.UINT64, 29);
  assert.equal(Object.keys(ScalarType).length, 30);
});
