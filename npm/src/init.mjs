// init() for every entry: the wasm module is instantiated once and the API
// cached; a failed attempt is not cached, so a later init() (say with a
// `locateFile` that points at the right place) tries again.
import { EtpackError, invalidArgument } from './errors.mjs';
import { createApi } from './api.mjs';
import { VERSION } from './version.mjs';
import { SPECS, checkOptions } from './options.mjs';

// platform: everything the entry point supplies, passed in whole (nothing is
// set on it later):
//   load({ locateFile, wasmBinary }) -> Promise of { module, instantiate? }:
//     the Emscripten module, and a synchronous way to make a fresh one when
//     the platform has it (Node: the wasm compiled once);
//   createHasher(module), openFile?(path): as CoreContext takes them (context.mjs).
export function makeInit(platform) {
  const { load, ...hooks } = platform;
  let instance = null;
  return function init(options = {}) {
    if (options === null || typeof options !== 'object') return Promise.reject(invalidArgument('init() takes an options object'));
    try {
      checkOptions(options, SPECS.init, 'init() options');
    } catch (e) {
      return Promise.reject(e);
    }
    const { locateFile, wasmBinary } = options;
    if (locateFile !== undefined && typeof locateFile !== 'function') {
      return Promise.reject(invalidArgument('locateFile must be a function (path, prefix) -> URL or path'));
    }
    if (wasmBinary !== undefined && !(wasmBinary instanceof ArrayBuffer || ArrayBuffer.isView(wasmBinary))) {
      return Promise.reject(invalidArgument('wasmBinary must be an ArrayBuffer or a Uint8Array'));
    }
    instance ??= (async () => {
      await null;  // `instance` is set before anything below can fail
      try {
        const { module, instantiate } = await load({ locateFile, wasmBinary });
        // A fresh instance replaces a dead or overgrown one: the platform's
        // synchronous way when it has one, else the same load again.
        const reinstantiate = instantiate ?? (async () => (await load({ locateFile, wasmBinary })).module);
        return createApi(module, { ...hooks, reinstantiate }, VERSION);
      } catch (e) {
        instance = null;  // not cached: the next init() tries again
        if (e instanceof EtpackError) throw e;
        throw new EtpackError('WASM_LOAD_FAILED', `cannot load etpack.wasm (${String(e?.message ?? e)}); `
          + 'pass init({ locateFile }) or init({ wasmBinary }), or use the executorch-pack/inline entry');
      }
    })();
    return instance;
  };
}
