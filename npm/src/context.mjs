// The state every operation shares: the current wasm instance, the sources
// registered with it, and its lifetime (instance.mjs). One CoreContext per
// init(); operations (ops/) and the wasm-side classes (classes/) take it as
// their first argument instead of closing over it.
import { coded } from './errors.mjs';
import { InstanceLifetime } from './instance.mjs';
import { Sources } from './sources.mjs';
import { HeapCopies, Scope, call as callCore, coreHost } from './marshal.mjs';

// platform: { createHasher(module) -> {update(view), digest() -> hex},
//             openFile?(path) -> a file source (Node),
//             reinstantiate?() -> a fresh module, or a Promise of one }
export class CoreContext {
  constructor(module, platform) {
    this.module = module;
    this.platform = platform;
    this.sources = new Sources(module, platform);
    // Replaced after a trap or a call that left the heap large (instance.mjs).
    this.lifetime = new InstanceLifetime(module, platform.reinstantiate, (fresh) => {
      this.module = fresh;
      this.sources.module = fresh;
    });
    // The wasm-side classes of this instance ({NamedDataStore,
    // FlatTensorSerializer}), set by api.mjs: operations check arguments
    // against them.
    this.classes = null;
  }

  guard(fn, self, args) {
    return this.lifetime.guard(fn, self, args);
  }

  // `fn` as a public entry point: run through guard() with the caller's `this`.
  guarded(fn) {
    const core = this;
    return function guardedCall(...args) {
      return core.guard(fn, this, args);
    };
  }

  guardMethods(cls, names) {
    for (const name of names) {
      Object.defineProperty(cls.prototype, name, { value: this.guarded(cls.prototype[name]), writable: true, configurable: true });
    }
  }

  // A core call: a failed Output becomes a thrown EtpackError, and an error
  // a host callback met (an unreadable file, an unopened Blob) wins over the
  // core's report of it, because it names the real cause.
  call(fn) {
    let out;
    try {
      out = callCore(fn);
    } catch (e) {
      this.sources.takeHostError();
      throw e;
    }
    try {
      this.sources.takeHostError();
    } catch (e) {
      out.delete();
      throw e;
    }
    return out;
  }

  // Runs fn(out) on a successful Output and frees it afterwards.
  run(fn, body) {
    const out = this.call(fn);
    try {
      return body(out);
    } finally {
      out.delete();
    }
  }

  // The host object for one call (marshal/host.mjs).
  host(extra) {
    return coreHost(this.sources, extra);
  }

  // Runs `body(scope, heap)` with per-call registrations released afterwards.
  withScope(body) {
    const scope = new Scope(this.sources);
    const heap = new HeapCopies(this.module, (length) => this.lifetime.programInHeap(length));
    try {
      return body(scope, heap);
    } finally {
      heap.free();
      scope.close();
    }
  }
}

// Async entry points: their rejections are coded too.
export function codedAsync(fn) {
  return async function codedCall(...args) {
    try {
      return await fn.apply(this, args);
    } catch (e) {
      throw coded(e);
    }
  };
}
