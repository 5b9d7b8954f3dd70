// `executorch-pack/inline`: the same API with the wasm embedded in a JS
// module (base64, generated when the package is packed), for bundlers and
// environments that cannot serve a .wasm file. Works in Node and browsers.
import createEtpackModule from './dist/etpack.mjs';
import wasmBytes from './dist/etpack-wasm.inline.mjs';
import { makeInit } from './src/init.mjs';
import { wasmHasher } from './src/wasm-sha256.mjs';

async function load({ wasmBinary }) {
  return { module: await createEtpackModule({ wasmBinary: wasmBinary ?? wasmBytes(), printErr: () => {} }) };
}

export default makeInit({ load, createHasher: wasmHasher });

export { EtpackError } from './src/errors.mjs';
export { Artifact } from './src/artifact.mjs';
