// The wasm instance's lifetime. A wasm heap never shrinks, and a trap
// (Emscripten's abort()) leaves an instance unusable; both are answered by
// replacing the instance with a fresh one between two public calls.
//
// Every public call runs through guard(): whatever it throws becomes an
// EtpackError (callers' own callback errors pass unchanged), and when the
// outermost call returns, a trapped instance or one whose heap was left over
// HEAP_RESET_BYTES is replaced. Stores count as live wasm objects: an
// overgrown heap is only replaced while none exists (a trapped instance is
// replaced anyway: it is dead).
import { EtpackError, coded, isWasmTrap } from './errors.mjs';

// After a call that left the heap larger than this (a hostile file, a huge
// program) the instance is replaced so the page or process stays small.
export const HEAP_RESET_BYTES = 128 << 20;

export class InstanceLifetime {
  #depth = 0;
  #trapped = false;
  #pending = null;  // a Promise of a fresh module (async platforms)

  // reinstantiate() -> a fresh module, or a Promise of one (or undefined:
  // never replace); onSwap(module) installs it.
  constructor(module, reinstantiate, onSwap) {
    this.module = module;
    this.liveStores = 0;
    this.reinstantiate = reinstantiate;
    this.onSwap = onSwap;
  }

  get trapped() {
    return this.#trapped;
  }

  guard(fn, self, args) {
    if (this.#trapped && this.#depth === 0) {
      throw new EtpackError('INTERNAL', 'the core is restarting after a failure; retry once `await et.ready()` resolves');
    }
    ++this.#depth;
    try {
      return fn.apply(self, args);
    } catch (e) {
      // A stack overflow may have unwound wasm frames without resetting the
      // core's own stack pointer: restart as after a trap (it is cheap).
      if (isWasmTrap(e) || (e instanceof RangeError && /call stack/i.test(e.message))) this.#trapped = true;
      throw coded(e);
    } finally {
      if (--this.#depth === 0) this.#afterCall();
    }
  }

  // Resolves once the instance is usable (after a restart on platforms that
  // instantiate asynchronously; at once elsewhere).
  async ready() {
    while (this.#pending) await this.#pending;
  }

  #afterCall() {
    if (!this.#trapped && (this.liveStores > 0 || this.module.HEAPU8.byteLength <= HEAP_RESET_BYTES)) return;
    if (!this.reinstantiate || this.#pending) return;
    let fresh;
    try {
      fresh = this.reinstantiate();
    } catch {
      return;  // keep the old instance (a trapped one keeps refusing calls)
    }
    if (typeof fresh?.then === 'function') {
      this.#pending = fresh.then((m) => {
        this.#pending = null;
        if (this.#trapped || this.liveStores === 0) this.#swap(m);
      }, () => { this.#pending = null; });
    } else {
      this.#swap(fresh);
    }
  }

  #swap(fresh) {
    this.module = fresh;
    this.#trapped = false;
    this.onSwap(fresh);
  }
}
