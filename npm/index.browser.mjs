// Browser (and bundler) entry: the factory finds etpack.wasm next to itself.
import createEtpackModule from './dist/etpack.mjs';
import { createApi } from './src/api.mjs';
import { wasmHasher } from './src/wasm-sha256.mjs';

const VERSION = '0.1.0';  // checked against package.json by scripts/check-dist.mjs
let instance;

export default function init(options = {}) {
  instance ??= createEtpackModule(options.locateFile ? { locateFile: options.locateFile } : {})
    .then((module) => createApi(module, { createHasher: wasmHasher }, VERSION));
  return instance;
}

export { EtpackError } from './src/errors.mjs';
export { Artifact } from './src/artifact.mjs';
