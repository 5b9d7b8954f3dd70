// Node only: etpack.wasm read from disk and compiled, for the Node entry
// (index.node.mjs) and the CLI, which starts it before it loads the command
// and the library so that reading and compiling overlap loading them (issue
// 42: start-up). Kept apart from index.node.mjs so the CLI can start this
// without loading the library.
//
// Where the wasm is: `locateFile`'s answer (a path or a file: URL), else the
// first of these next to this module: dist/etpack.wasm (a bundle of the
// entry at the package root), etpack.wasm (a bundle with the file copied
// beside it), ../etpack.wasm (the package's CLI bundle, dist/cli/),
// ../dist/etpack.wasm (these sources, npm/src/), else the installed
// package's (a bundle run where node_modules is). Paths are made with
// path.join from this module's own path, not `new URL('....wasm',
// import.meta.url)` or `require.resolve('....wasm')`: a bundler's server
// pass (Next.js, with webpack or Turbopack) would take those for modules to
// bundle, and fail on the one that is not there or on the wasm's imports.
import { readFile } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const WASM = 'etpack.wasm';

const attempt = (f) => {
  try {
    return f();
  } catch {
    return null;  // no import.meta.url (a CommonJS bundle), or no installed package
  }
};

// Each place is worked out only when the ones before it failed: resolving
// the installed package walks node_modules and reads package.json files
// (~25 ms, a third of the CLI's `validate` start-up, issue 42).
function candidates(locateFile) {
  if (locateFile) return [() => locateFile(WASM, '')];
  const here = attempt(() => dirname(fileURLToPath(import.meta.url)));
  return [
    () => here && join(here, 'dist', WASM),
    () => here && join(here, WASM),
    () => here && join(here, '..', WASM),
    () => here && join(here, '..', 'dist', WASM),
    () => attempt(() => join(dirname(createRequire(import.meta.url).resolve('executorch-pack/package.json')), 'dist', WASM)),
  ];
}

const read = (file) => new Promise((done, fail) => {
  readFile(typeof file === 'string' && file.startsWith('file:') ? new URL(file) : file, (e, bytes) => (e ? fail(e) : done(bytes)));
});

// The bytes of the first candidate that reads; an Error naming each failure.
async function wasmBytes(locateFile) {
  const errors = [];
  for (const candidate of candidates(locateFile)) {
    const c = candidate();
    if (!c) continue;
    try {
      return await read(c);
    } catch (e) {
      errors.push(e.message);
    }
  }
  throw new Error(errors.join('; ') || 'no location for etpack.wasm');
}

let found = null;  // the compile of the wasm found without a locateFile, once

// A promise of the compiled WebAssembly.Module: from `locateFile`'s place
// when given (read again on every call), else from the places above (read
// and compiled once per process; a failure is not kept, so a later call
// tries again). Rejects with a plain Error saying what failed.
export function compileWasm(locateFile) {
  if (locateFile) return wasmBytes(locateFile).then((bytes) => WebAssembly.compile(bytes));
  if (!found) {
    found = wasmBytes(null).then((bytes) => WebAssembly.compile(bytes));
    found.catch(() => {
      found = null;
    });
  }
  return found;
}
