// NamedDataStore: upstream's named data store, held by the wasm instance
// (src/model/named_data_store.h). One class per instance (the class closes
// over its CoreContext); delete() or `using` frees it.
import { EtpackError, invalidArgument } from '../errors.mjs';
import { SPECS, checkOptions, integerIn } from '../options.mjs';
import { describe } from '../bytes.mjs';
import { DISPOSE } from '../dispose.mjs';
import { entryOf } from '../sources.mjs';
import {
  encodeRequest, layoutToCore, markedReply, sourceRef, storeOutputFromCore, storeOutputToCore,
} from '../marshal.mjs';

export function defineNamedDataStore(core) {
  const { sources, lifetime } = core;

  class NamedDataStore {
    #live = new core.module.StoreHandle();  // null once deleted
    #module = core.module;  // the instance holding the store
    #ids = [];  // sources the store's buffers refer to; held while it lives

    constructor() {
      ++lifetime.liveStores;  // the instance is not replaced while a store lives
    }

    // The wasm-side store; a coded error (not embind's BindingError) once
    // deleted, or when the core was restarted after a failure.
    get #handle() {
      if (this.#live === null) throw new EtpackError('OBJECT_DELETED', 'this NamedDataStore was deleted (delete() or the end of its `using` block)');
      if (this.#module !== core.module) {
        throw new EtpackError('INTERNAL', 'this NamedDataStore was lost when the core restarted after a failure; create a new one');
      }
      return this.#live;
    }

    #run(fn) {
      core.call(fn).delete();
    }

    addNamedData(key, data, options = {}) {
      if (typeof key !== 'string') throw invalidArgument(`key must be a string, got ${describe(key)}`);
      const { alignment = 1, externalTag = null, tensorLayout = null } = checkOptions(options, SPECS.addNamedData, 'options');
      const entry = entryOf(data, 'data');
      const id = sources.register(entry);
      const layout = layoutToCore(tensorLayout, 'tensorLayout');
      try {
        this.#run(() => this.#handle.add(key, encodeRequest(sourceRef(id, entry)), alignment,
          externalTag ?? '', externalTag !== null, layout ? encodeRequest(layout) : '', core.host()));
      } catch (e) {
        sources.release(id);
        throw e;
      }
      this.#ids.push(id);
    }

    mergeNamedDataStore(other) {
      this.#handle;  // fail before reading `other` when this store is gone
      const output = other instanceof NamedDataStore ? other.getNamedDataStoreOutput() : other;
      core.withScope((scope) => {
        const json = storeOutputToCore(output, scope, 'other');
        // Keep the merged buffers' sources alive with this store (no spread:
        // a store may hold any number of buffers).
        for (const id of scope.ids) this.#ids.push(id);
        scope.ids = [];
        this.#run(() => this.#handle.merge(encodeRequest(json), core.host()));
      });
    }

    externalizePteData(maxDataBytes, tagPrefix) {
      if (typeof tagPrefix !== 'string') throw invalidArgument('tagPrefix must be a string');
      if (!['number', 'bigint'].includes(typeof maxDataBytes) || (typeof maxDataBytes === 'number' && !Number.isSafeInteger(maxDataBytes))) {
        throw invalidArgument(`external data shard cap must be a positive integer, received ${String(maxDataBytes)}`);
      }
      const cap = integerIn(maxDataBytes, 'external data shard cap', 1, Number.MAX_SAFE_INTEGER);
      this.#run(() => this.#handle.externalize(cap, tagPrefix, core.host()));
    }

    getNamedDataStoreOutput() {
      return core.run(() => this.#handle.output(), (out) => storeOutputFromCore(markedReply(core.module, sources, out)));
    }

    // Deleting twice is harmless (as `using` after an explicit delete()).
    delete() {
      if (this.#live === null) return;
      const handle = this.#live;
      this.#live = null;
      --lifetime.liveStores;
      for (const id of this.#ids) sources.release(id);
      this.#ids = [];
      // A store of a replaced instance has nothing left to free.
      if (this.#module === core.module && !lifetime.trapped) handle.delete();
    }

    [DISPOSE]() {
      this.delete();
    }
  }
  core.guardMethods(NamedDataStore, ['addNamedData', 'mergeNamedDataStore', 'externalizePteData', 'getNamedDataStoreOutput', 'delete']);
  return NamedDataStore;
}

// A store argument (a NamedDataStore, or a store output object, or none)
// -> the core's JSON, buffers by reference.
export function storeRequest(core, store, scope, what) {
  if (store === null || store === undefined) return null;
  const output = store instanceof core.classes.NamedDataStore ? store.getNamedDataStoreOutput() : store;
  return storeOutputToCore(output, scope, what);
}
