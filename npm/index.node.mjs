// Node entry: reads etpack.wasm with `fs` (from next to this file, or from
// where `locateFile` says: src/node-wasm.mjs) and instantiates it once.
// Adds what only Node has: files by path as inputs, and artifacts written
// to disk or to Node streams.
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import createEtpackModule from './dist/etpack.mjs';
import { makeInit } from './src/init.mjs';
import { platformHooks } from './src/artifact.mjs';
import { FileSource, nodeStream, writeArtifact } from './src/node-files.mjs';
import { textHooks } from './src/marshal/heap.mjs';
import { compileWasm } from './src/node-wasm.mjs';

// Artifact#writeTo and #toNodeStream in Node (artifact.mjs holds these
// hooks for every Artifact, whichever call made it).
platformHooks.writeTo = writeArtifact;
platformHooks.nodeStream = nodeStream;

// The core's replies (JSON text) as strings: ASCII text (nearly every
// reply) by a Latin-1 read of the heap, which is a copy, where Node's
// TextDecoder is a slow UTF-8 pass (heap.mjs heapText).
textHooks.asciiText = (view) => (isAscii(view) ? Buffer.from(view.buffer, view.byteOffset, view.byteLength).toString('latin1') : undefined);

// The wasm is compiled once and each instance made from it synchronously, so
// the API can replace a dead or overgrown instance between two calls
// (`instantiate`, handed to init()).
async function load({ locateFile, wasmBinary }) {
  const compiled = await (wasmBinary ? WebAssembly.compile(wasmBinary) : compileWasm(locateFile));
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
