// The host object the core calls back into during one call
// (src/bindings/host_call.h): digests and reads of registered sources by
// (id, offset, size), and the custom data serializer. Callbacks must not
// throw through wasm frames: a failure is reported to the core as a failed
// result and the error kept in `sources.hostError`, which the glue rethrows
// after the call (context.mjs).
export function coreHost(sources, { serializeData } = {}) {
  const guard = (fn, failed) => {
    try {
      return fn();
    } catch (e) {
      sources.hostError ??= e;
      return failed;
    }
  };
  return {
    digest: (id, offset, size) => guard(() => sources.digest(id, offset, size), null),
    read: (id, offset, size, ptr) => guard(() => {
      // Straight into the heap (HEAPU8 re-read: memory may have grown): the
      // one copy of bytes the core must hold, e.g. inline in a flatbuffer.
      sources.get(id).copyTo(sources.module.HEAPU8, ptr, offset, size);
      return true;
    }, false),
    // Optional reads (fingerprint edges, padding): failure is not an error.
    peek: (id, offset, size, ptr) => {
      try {
        sources.get(id).copyTo(sources.module.HEAPU8, ptr, offset, size);
        return true;
      } catch {
        sources.peekMisses?.push({ id, offset, size });  // validate says what it could not check
        return false;
      }
    },
    serializeData: serializeData || (() => '{"error":"no data serializer"}'),
  };
}
