// SHA-256 with the core's own implementation, for hosts without a
// synchronous hash (browsers): bytes pass through a small heap window.
const WINDOW = 1 << 20;

export function wasmSha256(view, module) {
  const hasher = new module.Sha256();
  const ptr = module._malloc(WINDOW) >>> 0;
  try {
    for (let at = 0; at < view.byteLength; at += WINDOW) {
      const chunk = view.subarray(at, Math.min(view.byteLength, at + WINDOW));
      module.HEAPU8.set(chunk, ptr);  // transient copy, only to hash
      hasher.update(ptr, chunk.byteLength);
    }
    return hasher.finish();
  } finally {
    module._free(ptr);
    hasher.delete();
  }
}
