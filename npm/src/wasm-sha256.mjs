// SHA-256 with the core's own implementation, for hosts without a
// synchronous hash (browsers): bytes pass through a small heap window.
const WINDOW = 1 << 20;

export function wasmHasher(module) {
  const hasher = new module.Sha256();
  return {
    update(view) {
      const ptr = module._malloc(Math.min(WINDOW, Math.max(1, view.byteLength))) >>> 0;
      try {
        for (let at = 0; at < view.byteLength; at += WINDOW) {
          const chunk = view.subarray(at, Math.min(view.byteLength, at + WINDOW));
          module.HEAPU8.set(chunk, ptr);  // transient copy, only to hash
          hasher.update(ptr, chunk.byteLength);
        }
      } finally {
        module._free(ptr);
      }
    },
    digest() {
      try {
        return hasher.finish();
      } finally {
        hasher.delete();
      }
    },
  };
}
