// Node entry: reads the .wasm next to this file and instantiates it once.
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import createEtpackModule from './dist/etpack.mjs';
import { createApi } from './src/api.mjs';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
let instance;

export default function init() {
  instance ??= createEtpackModule({ wasmBinary: readFileSync(new URL('./dist/etpack.wasm', import.meta.url)) })
    .then((module) => createApi(module, { sha256: (view) => createHash('sha256').update(view).digest('hex') }, pkg.version));
  return instance;
}

export { EtpackError } from './src/errors.mjs';
