// The wasm instance's lifetime. A wasm heap never shrinks, and a trap
// (Emscripten's abort()) leaves an instance unusable; both are answered by
// replacing the instance with a fresh one between two public calls.
//
// Every public call runs through guard(): whatever it throws becomes an
// EtpackError (callers' own callback errors pass unchanged), and when the
// outermost call returns, a trapped instance is replaced, and so is one whose
// heap the call left over HEAP_RESET_BYTES, unless the call's own program
// accounts for that heap (see programInHeap). Stores count as live wasm
// objects: an overgrown heap is only replaced while none exists (a trapped
// instance is replaced anyway: it is dead).
//
// Why a big program keeps its heap for a while: pages a heap touches for
// the first time cost more than the work done in them (on this project's
// benchmark machine, 150 MiB of fresh wasm pages took 0.5-0.8 s to touch,
// about twice a 200k-value serialize on a warm heap), so replacing the
// instance after every call on a big program made each call pay for them
// again. Such a heap stays while calls keep coming and is replaced once the
// caller has been idle for IDLE_RESET_MS, so a process or page still
// returns to its small size when the work is done. A heap a call grew
// without accounting for it (a hostile file, a program far smaller than the
// heap) is replaced at once, as before.
import { EtpackError, coded, isWasmTrap } from './errors.mjs';
import { heapBytes } from './marshal.mjs';

// After a call that left the heap larger than this (a hostile file, a huge
// program) the instance is replaced so the page or process stays small.
export const HEAP_RESET_BYTES = 128 << 20;

// Heap a program may need per byte of its JSON text (or request) in the
// heap: the text, the model parsed from it, the encoder's buffers and the
// output (serialize: about 5 bytes of heap per byte of text, programToJson
// about 9, measured at 200k EValues); with room for programs of another
// shape.
export const HEAP_PER_PROGRAM_BYTE = 16;

// How long an overgrown heap that a program accounted for is kept after
// the last call.
export const IDLE_RESET_MS = 1000;

export class InstanceLifetime {
  #depth = 0;
  #trapped = false;
  #pending = null;  // a Promise of a fresh module (async platforms)
  #accounted = 0;  // heap bytes the outermost call's programs account for
  #idleTimer = null;
  #waited = 0;  // at the outermost call's start: the heap size an idle reset was waiting on, else 0

  // reinstantiate() -> a fresh module, or a Promise of one (or undefined:
  // never replace); onSwap(module) installs it. idleMs: see IDLE_RESET_MS.
  constructor(module, reinstantiate, onSwap, { idleMs = IDLE_RESET_MS } = {}) {
    this.module = module;
    this.liveStores = 0;
    this.reinstantiate = reinstantiate;
    this.onSwap = onSwap;
    this.idleMs = idleMs;
  }

  // Called for each program (as text or a request) a call puts in the heap:
  // the heap it may take (HEAP_PER_PROGRAM_BYTE per byte) is accounted for.
  programInHeap(bytes) {
    this.#accounted = Math.max(this.#accounted, HEAP_RESET_BYTES + bytes * HEAP_PER_PROGRAM_BYTE);
  }

  get trapped() {
    return this.#trapped;
  }

  guard(fn, self, args) {
    if (this.#trapped && this.#depth === 0) {
      throw new EtpackError('INTERNAL', 'the core is restarting after a failure; retry once `await et.ready()` resolves');
    }
    if (this.#depth++ === 0) {
      this.#waited = this.#idleTimer === null ? 0 : heapBytes(this.module);
      this.#cancelIdleReset();
      this.#accounted = 0;
    }
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
    const accounted = this.#accounted;
    this.#accounted = 0;
    if (this.#trapped) {
      this.#replace();
      return;
    }
    const heap = heapBytes(this.module);
    if (this.liveStores > 0 || heap <= HEAP_RESET_BYTES) return;
    // A call that did not grow a heap kept for an earlier program (say, a
    // validate between two serializes) leaves it waiting for idleness.
    if (heap <= accounted || heap <= this.#waited) this.#idleReset();
    else this.#replace();
  }

  // The overgrown heap is replaced once no call has come for idleMs (a
  // timer that does not keep Node running).
  #idleReset() {
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = null;
      if (this.#depth === 0 && this.liveStores === 0 && heapBytes(this.module) > HEAP_RESET_BYTES) this.#replace();
    }, this.idleMs);
    this.#idleTimer.unref?.();
  }

  #cancelIdleReset() {
    if (this.#idleTimer === null) return;
    clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
  }

  #replace() {
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
