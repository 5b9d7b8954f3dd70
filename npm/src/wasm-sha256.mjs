// SHA-256 with the core's own implementation, for hosts without a
// synchronous hash (browsers): bytes pass through a small heap window.
// copy() forks the running state (diff hashes ranges sharing a start in one
// pass: src/ops/diff_ranges.h).
const WINDOW = 1 << 20;

export function wasmHasher(module, state = new module.Sha256State()) {
  return {
    update(view) {
      const ptr = module._malloc(Math.min(WINDOW, Math.max(1, view.byteLength))) >>> 0;
      try {
        for (let at = 0; at < view.byteLength; at += WINDOW) {
          const chunk = view.subarray(at, Math.min(view.byteLength, at + WINDOW));
          module.HEAPU8.set(chunk, ptr);  // transient copy, only to hash
          state.update(ptr, chunk.byteLength);
        }
      } finally {
        module._free(ptr);
      }
    },
    copy() {
      return wasmHasher(module, state.copy());
    },
    digest() {
      try {
        return state.finish();
      } finally {
        state.delete();
      }
    },
  };
}
