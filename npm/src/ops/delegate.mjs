// decodeDelegate(): a delegate's processed blob (what extract() returns)
// decoded by its payload kind (src/ops/decode_delegate.h): XNNPACK, Vulkan,
// MPS, MLX and native graphs as flatc prints them, Core ML's
// file tree, QNN's header, Ethos-U's blocks; a blob of no known kind stays
// opaque. The blob is copied into the wasm heap once. Integers above 2^53
// come back as BigInt; non-finite floats as Infinity / NaN.
import { check, checkOptions } from '../options.mjs';
import { encodeRequest, parseLossless, replyText } from '../marshal.mjs';
import { closeAll, openPath } from '../files-in.mjs';
import { entryOf } from '../sources.mjs';

const SPEC = {
  // The delegate's backend id (BackendDelegate.id, extract()'s `id`):
  // without it the kind is found by the blob's magic.
  backend: check.stringOrNull,
};

export function decodeDelegate(core, blob, options = {}) {
  const o = checkOptions(options, SPEC, 'options');
  const opened = [];
  try {
    const entry = entryOf(openPath(core, blob, opened), 'blob');
    return core.withScope((scope, heap) => {
      const request = { blob: heap.putFrom(entry, 0, entry.size), backend: o.backend ?? '' };
      return core.run(() => core.module.decodeDelegate(encodeRequest(request), core.host()),
        (out) => parseLossless(replyText(out)));
    });
  } finally {
    closeAll(opened);
  }
}

// Before a writer returns files: every named-data key the .pte's delegates
// look up at init() must be among `held` (the keys the files written would
// hold) or, with pteKept, in the .pte's own named_data (the .pte is not
// rewritten), else EtpackError MISSING_DELEGATE_DATA naming the first key,
// its delegate and method, with every missing key in `keys`
// (src/ops/delegate_keys_guard.h). `outputs` says which files were meant.
export function guardDelegateKeys(et, pte, held, outputs, pteKept = false) {
  const { guard, withScope, call, host, fileRequest } = et._internal;
  guard(() => withScope((scope, heap) => {
    const request = { pte: fileRequest(pte, 'pte', scope, heap, 'pte'), held: [...held], outputs, pteNamedDataKept: pteKept };
    call(() => et._internal.module.delegateKeysGuard(JSON.stringify(request), host())).delete();
  }), null, []);
}
