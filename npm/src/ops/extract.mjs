// extract(): one delegate's processed blob, byte for byte, wherever the .pte
// keeps it (inline data or a segment; src/ops/extract.h). Only the head of
// the .pte is read to find it; the blob is a range of the input, copied once
// into the form asked for (bytes, Blob or Artifact).
import { OUTPUT, check, checkOptions, integerIn } from '../options.mjs';
import { encodeRequest, replyJson } from '../marshal.mjs';
import { closeAll, fileRequest, openPath } from '../files-in.mjs';
import { deliver, outputOptions } from '../outputs.mjs';

const SPEC = {
  ...OUTPUT,
  // Counted over the methods in order (method 0's delegates first), or
  // within `method` when it is given.
  delegate: (v, what) => integerIn(v, what, 0, Number.MAX_SAFE_INTEGER),
  method: check.string,
};

export function extract(core, pte, options = {}) {
  const o = checkOptions(options, SPEC, 'options');
  const delivery = outputOptions(options, 'options', SPEC);
  const opened = [];
  let keepOpen = false;
  try {
    return core.withScope((scope, heap) => {
      const request = {
        pte: fileRequest(core, openPath(core, pte, opened), 'pte', scope, heap, 'pte'),
        delegate: o.delegate ?? 0,
        method: o.method ?? null,
      };
      return core.run(() => core.module.extract(encodeRequest(request), core.host()), (out) => {
        const reply = replyJson(out);
        const [bytes] = deliver(core, out, delivery);
        // An Artifact or Blob may still read from the opened file.
        keepOpen = delivery.output !== 'bytes';
        return {
          bytes, method: reply.method, index: reply.index, id: reply.id,
          location: reply.location, offset: reply.offset, size: reply.size,
        };
      });
    });
  } finally {
    if (!keepOpen) closeAll(opened);
  }
}
