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
