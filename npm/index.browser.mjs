// Browser (and bundler) entry: etpack.wasm is fetched from where a bundler
// put it or from beside the bundle (wasmUrls below), unless init() is given
// `locateFile` or `wasmBinary`; the Emscripten factory is handed the bytes.
import createEtpackModule from './dist/etpack.mjs';
import { makeInit } from './src/init.mjs';
import { wasmHasher } from './src/wasm-sha256.mjs';
import { fetchWasm, loaderSettings } from './src/wasm-location.mjs';

// A bundle with no `import.meta` (esbuild's default IIFE output, loaded by a
// classic <script>) makes `import.meta.url` undefined, and the factory's
// `new URL('etpack.wasm', undefined)` throws. The script's own URL, read
// while the bundle is being evaluated (document.currentScript is null once
// it has run), stands in for it: the wasm is looked for beside the bundle,
// as in an ES module build.
const HAS_IMPORT_META_URL = typeof import.meta.url === 'string' && import.meta.url !== '';
const SCRIPT_URL = (typeof document !== 'undefined' && document.currentScript?.src)
  || (typeof self !== 'undefined' && self.location?.href) || undefined;

const MODULE_URL = HAS_IMPORT_META_URL ? import.meta.url : SCRIPT_URL;

// Where etpack.wasm may be, in order. Given a locateFile: where it says
// (its `prefix` is the directory of this script or bundle). Else the file
// a bundler resolved and emitted (Vite, webpack, Parcel rewrite this
// literal `new URL(..., import.meta.url)`; unbundled it is the package's
// dist/etpack.wasm), then the file beside the bundle (esbuild and Rollup,
// as the README says to copy it; a non-literal, so that bundlers leave it).
function wasmUrls(locateFile) {
  if (locateFile) return [locateFile('etpack.wasm', MODULE_URL ? new URL('./', MODULE_URL).href : '')];
  const beside = MODULE_URL ? new URL('etpack.wasm', MODULE_URL).href : 'etpack.wasm';
  if (!HAS_IMPORT_META_URL) return [beside];
  const resolved = new URL('./dist/etpack.wasm', import.meta.url).href;
  return resolved === beside ? [resolved] : [resolved, beside];
}

// The bytes are fetched here, before the factory compiles anything: a
// missing or wrong file is WASM_LOAD_FAILED naming each URL tried and its
// HTTP status (src/wasm-location.mjs fetchWasm).
async function load({ locateFile, wasmBinary }) {
  const bytes = wasmBinary ?? await fetchWasm(wasmUrls(locateFile));
  return { module: await createEtpackModule(loaderSettings({ locateFile, wasmBinary: bytes })) };
}

export default makeInit({ load, createHasher: wasmHasher });

export { EtpackError } from './src/errors.mjs';
export { Artifact } from './src/artifact.mjs';
export { ScalarType } from './src/scalar-type.mjs';
