// `executorch-pack/inline`: the same API with the wasm embedded in a JS
// module (base64, generated when the package is packed), for bundlers and
// environments that cannot serve a .wasm file, and classic scripts (an
// IIFE bundle: the factory is handed the bytes and a `locateFile`, so it
// never evaluates `new URL('etpack.wasm', import.meta.url)`). Works in Node
// and browsers.
import createEtpackModule from './dist/etpack.mjs';
import wasmBytes from './dist/etpack-wasm.inline.mjs';
import { makeInit } from './src/init.mjs';
import { wasmHasher } from './src/wasm-sha256.mjs';
import { loaderSettings } from './src/wasm-location.mjs';

async function load({ wasmBinary }) {
  return { module: await createEtpackModule(loaderSettings({ wasmBinary: wasmBinary ?? wasmBytes() })) };
}

export default makeInit({ load, createHasher: wasmHasher });

export { EtpackError } from './src/errors.mjs';
export { Artifact } from './src/artifact.mjs';
export { ScalarType } from './src/scalar-type.mjs';
