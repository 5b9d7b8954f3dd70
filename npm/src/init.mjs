// init() for every entry: the wasm module is instantiated once and the API
// cached; a failed attempt is not cached, so a later init() (say with a
// `locateFile` that points at the right place) tries again.
import { EtpackError, invalidArgument } from './errors.mjs';
import { createApi } from './api.mjs';
import { VERSION } from './version.mjs';
import { SPECS, checkOptions } from './options.mjs';

// load(options) -> Promise of the Emscripten module; platform as createApi takes it.
export function makeInit(load, platform) {
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
        // A fresh instance replaces a dead or overgrown one: the same load
        // again, unless the platform has a faster (synchronous) way.
        const reinstantiate = () => load({ locateFile, wasmBinary });
        return createApi(await load({ locateFile, wasmBinary }), { reinstantiate, ...platform }, VERSION);
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
