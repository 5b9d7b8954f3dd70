// init() in Node: `locateFile` and `wasmBinary` are used, a failed init() is
// a coded error and is not cached (this file runs in its own process, so
// the first init() here is the module's first).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ARTIFACTS, NPM } from './helpers/common.mjs';
import { generate } from '../../scripts/gen-package.mjs';

test('a failed init() is not cached; a later init({ locateFile }) succeeds', async () => {
  const { default: init, EtpackError } = await import(join(NPM, 'index.node.mjs'));
  const asked = [];
  await assert.rejects(init({ locateFile: (path, prefix) => { asked.push([path, prefix]); return '/nonexistent/etpack.wasm'; } }),
    (e) => e instanceof EtpackError && e.code === 'WASM_LOAD_FAILED' && /nonexistent/.test(e.message));
  assert.deepEqual(asked, [['etpack.wasm', '']]);
  await assert.rejects(init({ locateFile: 'x' }), { code: 'INVALID_ARGUMENT' });
  await assert.rejects(init({ wasmBinary: 'x' }), { code: 'INVALID_ARGUMENT' });
  await assert.rejects(init({ wasmBinary: new Uint8Array([0, 1, 2]) }), { code: 'WASM_LOAD_FAILED' });
  const wasm = pathToFileURL(join(NPM, 'dist/etpack.wasm')).href;
  const et = await init({ locateFile: () => wasm });
  assert.equal(typeof et.validate, 'function');
  assert.equal(await init(), et, 'the successful instance is cached');
});

test('the inline entry needs no file and takes wasmBinary', async () => {
  generate();  // dist/etpack-wasm.inline.mjs
  const { default: init } = await import(join(NPM, 'index.inline.mjs'));
  const et = await init({ wasmBinary: readFileSync(join(NPM, 'dist/etpack.wasm')) });
  assert.equal(et.validate(readFileSync(join(ARTIFACTS, 'add.pte'))).ok, true);
  assert.equal((await import(join(NPM, 'index.inline.mjs'))).default === init, true);
});
