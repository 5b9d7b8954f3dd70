// Browser (and bundler) entry: the factory finds etpack.wasm next to itself
// (`new URL('etpack.wasm', import.meta.url)`, which Vite, webpack, Parcel
// and Rollup's ES output resolve), unless init() is given `locateFile` or
// `wasmBinary`.
import createEtpackModule from './dist/etpack.mjs';
import { makeInit } from './src/init.mjs';
import { wasmHasher } from './src/wasm-sha256.mjs';
import { loaderSettings } from './src/wasm-location.mjs';

// A bundle with no `import.meta` (esbuild's default IIFE output, loaded by a
// classic <script>) makes `import.meta.url` undefined, and the factory's
// `new URL('etpack.wasm', undefined)` throws. The script's own URL, read
// while the bundle is being evaluated (document.currentScript is null once
// it has run), stands in for it: the wasm is looked for beside the bundle,
// as in an ES module build.
const HAS_IMPORT_META_URL = typeof import.meta.url === 'string' && import.meta.url !== '';
const SCRIPT_URL = (typeof document !== 'undefined' && document.currentScript?.src)
  || (typeof self !== 'undefined' && self.location?.href) || undefined;

async function load({ locateFile, wasmBinary }) {
  const base = HAS_IMPORT_META_URL ? undefined : SCRIPT_URL;
  return { module: await createEtpackModule(loaderSettings({ locateFile, wasmBinary, base })) };
}

export default makeInit({ load, createHasher: wasmHasher });

export { EtpackError } from './src/errors.mjs';
export { Artifact } from './src/artifact.mjs';
export { ScalarType } from './src/scalar-type.mjs';
