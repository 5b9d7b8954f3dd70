import { EtpackError } from './errors.mjs';

// The settings handed to the Emscripten factory (dist/etpack.mjs), which
// decides where etpack.wasm is when it starts:
//   if (Module.locateFile) file = locateFile('etpack.wasm', scriptDirectory)
//   else                   file = new URL('etpack.wasm', import.meta.url)
// The second branch throws wherever `import.meta.url` is undefined (an IIFE
// or CommonJS bundle: esbuild's default format, a classic <script>), even
// when the bytes are given and no file is ever fetched. So a `locateFile`
// is always passed when the wasm is given (`wasmBinary`: the name it
// returns is never fetched) or when `base` says where the script is; the
// `new URL(..., import.meta.url)` branch is left only to builds that have
// `import.meta.url`, where bundlers see and resolve it.
export function loaderSettings({ locateFile, wasmBinary, base } = {}) {
  const settings = { printErr: () => {} };  // failures come back as a coded error instead
  if (wasmBinary) {
    settings.wasmBinary = wasmBinary;
    settings.locateFile = locateFile ?? ((name) => name);
  } else if (locateFile) {
    settings.locateFile = locateFile;
  } else if (base) {
    settings.locateFile = (name) => new URL(name, base).href;
  }
  return settings;
}

const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d];  // "\0asm"

// The wasm bytes from the first of `urls` that answers with WebAssembly,
// fetched before anything is compiled, so that a failure is a coded
// WASM_LOAD_FAILED naming each URL tried and what it answered (HTTP status,
// a page that is not WebAssembly, a network error) instead of the
// Emscripten factory's "both async and sync fetching ... failed" or, in a
// worker, a CompileError from the 404 page's bytes. `urls`: strings or URLs
// (relative ones are resolved against the page or worker).
export async function fetchWasm(urls, fetchImpl = globalThis.fetch) {
  if (typeof fetchImpl !== 'function') throw new EtpackError('WASM_LOAD_FAILED', 'cannot load etpack.wasm: fetch() is not available here; pass init({ wasmBinary }) or use the executorch-pack/inline entry');
  const tried = [];
  for (const candidate of urls) {
    const url = absolute(candidate);
    let response;
    try {
      response = await fetchImpl(url, { credentials: 'same-origin' });
    } catch (e) {
      tried.push(`${url}: network error (${String(e?.message ?? e)})`);
      continue;
    }
    if (!response.ok) {
      tried.push(`${url}: HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
      continue;
    }
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.byteLength < 8 || !WASM_MAGIC.every((b, i) => bytes[i] === b)) {
      const type = response.headers?.get?.('content-type');
      tried.push(`${url}: HTTP ${response.status} with ${bytes.byteLength} bytes that are not WebAssembly${type ? ` (${type})` : ''}`);
      continue;
    }
    return bytes;
  }
  const e = new EtpackError('WASM_LOAD_FAILED', `cannot load etpack.wasm: ${tried.join('; ')}; `
    + 'serve etpack.wasm there, or pass init({ locateFile }) or init({ wasmBinary }), or use the executorch-pack/inline entry');
  e.urls = urls.map((u) => absolute(u));
  return Promise.reject(e);
}

function absolute(url) {
  try {
    return new URL(String(url), globalThis.location?.href).href;
  } catch {
    return String(url);
  }
}
