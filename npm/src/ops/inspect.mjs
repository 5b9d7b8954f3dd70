// inspect(): a summary of a .pte or .ptd (src/read/inspect.h). Only the head
// of the file (header and flatbuffer) is read, plus peeks at padding;
// segment data stays where it is.
import { SPECS, checkOptions } from '../options.mjs';
import { encodeRequest, readInspectReply } from '../marshal.mjs';
import { closeAll, fileRequest, kindOf, openPath } from '../files-in.mjs';

export function inspect(core, data, options = {}) {
  const o = checkOptions(options, SPECS.inspect, 'options');
  const opened = [];
  try {
    return inspectSource(core, openPath(core, data, opened), o);
  } finally {
    closeAll(opened);
  }
}

// An already opened input; options checked.
export function inspectSource(core, data, o) {
  return core.withScope((scope, heap) => {
    const kind = o.kind ?? kindOf(data, 'data');
    const request = encodeRequest(fileRequest(core, data, kind, scope, heap, 'data', true));
    return core.run(() => core.module.inspect(kind, request, core.host()), (out) => readInspectReply(core.module, out));
  });
}
