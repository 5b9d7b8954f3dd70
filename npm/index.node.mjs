// Node entry: reads etpack.wasm with `fs` (from next to this file, or from
// where `locateFile` says) and instantiates it once. Adds what only Node
// has: files by path as inputs, and artifacts written to disk or to Node
// streams.
import { isAscii } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import createEtpackModule from './dist/etpack.mjs';
import { makeInit } from './src/init.mjs';
import { platformHooks } from './src/artifact.mjs';
import { FileSource, nodeStream, writeArtifact } from './src/node-files.mjs';
import { textHooks } from './src/marshal/heap.mjs';

// Artifact#writeTo and #toNodeStream in Node (artifact.mjs holds these
// hooks for every Artifact, whichever call made it).
platformHooks.writeTo = writeArtifact;
platformHooks.nodeStream = nodeStream;

// The core's replies (JSON text) as strings: ASCII text (nearly every
// reply) by a Latin-1 read of the heap, which is a copy, where Node's
// TextDecoder is a slow UTF-8 pass (heap.mjs heapText).
textHooks.asciiText = (view) => (isAscii(view) ? Buffer.from(view.buffer, view.byteOffset, view.byteLength).toString('latin1') : undefined);

// Where the wasm is: `locateFile`'s answer (a path or a file: URL), else
// dist/etpack.wasm next to this module, else etpack.wasm next to it (a
// bundle with the file copied beside it), else one folder up (the package's
// CLI bundle, dist/cli/), else the installed package's (a bundle run where
// node_modules is). Paths are made with path.join from
// this module's own path, not `new URL('....wasm', import.meta.url)` or
// `require.resolve('....wasm')`: a bundler's server pass (Next.js, with
// webpack or Turbopack) would take those for modules to bundle, and fail on
// the one that is not there or on the wasm's imports.
const WASM = 'etpack.wasm';

function wasmFile(locateFile) {
  const attempt = (f) => {
    try {
      return f();
    } catch {
      return null;  // no import.meta.url (a CommonJS bundle), or no installed package
    }
  };
  const here = attempt(() => dirname(fileURLToPath(import.meta.url)));
  // Each place is worked out only when the ones before it failed: resolving
  // the installed package walks node_modules and reads package.json files
  // (~25 ms, a third of the CLI's `validate` start-up, issue 42).
  const candidates = locateFile ? [() => locateFile(WASM, '')] : [
    () => here && join(here, 'dist', WASM),
    () => here && join(here, WASM),
    () => here && join(here, '..', WASM),
    () => attempt(() => join(dirname(createRequire(import.meta.url).resolve('executorch-pack/package.json')), 'dist', WASM)),
  ];
  const errors = [];
  for (const candidate of candidates) {
    const c = candidate();
    if (!c) continue;
    try {
      return readFileSync(typeof c === 'string' && c.startsWith('file:') ? new URL(c) : c);
    } catch (e) {
      errors.push(e.message);
    }
  }
  throw new Error(errors.join('; ') || 'no location for etpack.wasm');
}

// The wasm is compiled once and each instance made from it synchronously, so
// the API can replace a dead or overgrown instance between two calls
// (`instantiate`, handed to init()).
async function load({ locateFile, wasmBinary }) {
  const compiled = await WebAssembly.compile(wasmBinary ?? wasmFile(locateFile));
  const instantiate = () => {
    const module = {
      printErr: () => {},
      // The instance is made here: a locateFile keeps the factory from
      // evaluating `new URL('etpack.wasm', import.meta.url)`, which throws
      // in a CommonJS bundle (no import.meta.url). Nothing is fetched.
      locateFile: (name) => name,
      instantiateWasm(imports, receive) {
        const wasm = new WebAssembly.Instance(compiled, imports);
        receive(wasm);
        return wasm.exports;
      },
    };
    createEtpackModule(module).catch(() => {});  // failures: calledRun stays false
    if (!module.calledRun) throw new Error('the wasm module did not start');
    return module;
  };
  return { module: instantiate(), instantiate };
}

export default makeInit({
  load,
  createHasher() {
    // copy(): diff forks a running hash at each range end (src/ops/diff_ranges.h).
    const wrap = (hash) => ({ update: (view) => hash.update(view), digest: () => hash.digest('hex'), copy: () => wrap(hash.copy()) });
    return wrap(createHash('sha256'));
  },
  openFile: (path) => new FileSource(path),
});

export { EtpackError } from './src/errors.mjs';
export { Artifact } from './src/artifact.mjs';
export { FileSource };
export { ScalarType } from './src/scalar-type.mjs';
