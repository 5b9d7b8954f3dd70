// Browser (and bundler) entry: the factory finds etpack.wasm next to itself
// (`new URL('etpack.wasm', import.meta.url)`, which Vite and webpack turn
// into an asset), unless init() is given `locateFile` or `wasmBinary`.
import createEtpackModule from './dist/etpack.mjs';
import { makeInit } from './src/init.mjs';
import { wasmHasher } from './src/wasm-sha256.mjs';

async function load({ locateFile, wasmBinary }) {
  const settings = { printErr: () => {} };  // failures come back as a coded error instead
  if (locateFile) settings.locateFile = locateFile;
  if (wasmBinary) settings.wasmBinary = wasmBinary;
  return { module: await createEtpackModule(settings) };
}

export default makeInit({ load, createHasher: wasmHasher });

export { EtpackError } from './src/errors.mjs';
export { Artifact } from './src/artifact.mjs';
