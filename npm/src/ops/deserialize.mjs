// deserializePteBinary (upstream's deserialize_pte_binary) and
// programToJson (upstream's _program_to_json text of a program).
import {
  blobs, encodeRequest, programPieces, readProgramReply, replyText, storeOutputFromCore,
} from '../marshal.mjs';
import { fileRequest, openPath } from '../files-in.mjs';

// A path stays open: the segments returned are lazy Artifacts reading it
// (the descriptor is closed when they are garbage-collected).
export function deserializePteBinary(core, data) {
  data = openPath(core, data, null);
  return core.withScope((scope, heap) => {
    const request = encodeRequest(fileRequest(core, data, 'pte', scope, heap, 'data'));
    return core.run(() => core.module.deserializePteBinary(request, core.host()), (out) => {
      const reply = readProgramReply(core.module, out, blobs(core.module, core.sources, out));
      return {
        program: reply.program,
        mutableData: reply.mutable_data,
        namedData: reply.named_data ? storeOutputFromCore(reply.named_data) : null,
      };
    });
  });
}

export function programToJson(core, program) {
  return core.withScope((scope, heap) => {
    const text = heap.putText(programPieces(program, scope));
    return core.run(() => core.module.programToJson(text.ptr, text.len, core.host()), replyText);
  });
}
