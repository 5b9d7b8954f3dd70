// The JS <-> wasm boundary: every encoding of a request and decoding of a
// reply, and every touch of the module's memory, lives under marshal/; the
// rest of the package imports it from here. One file per encoding:
//   heap.mjs            the heap: copies in (HeapCopies), views, copies and text out
//   refs.mjs            how a request names bytes ({src, size, head, tail, digest}),
//                       per-call registrations (Scope), request JSON
//   host.mjs            the callbacks the core makes during a call (read, peek, digest)
//   program-text.mjs    a program object -> JSON text (special numbers, BigInts, bytes)
//   program-stream.mjs  a program object -> the value stream (src/core/value_stream.h)
//   output.mjs          an Output: verdict -> EtpackError, returned byte arrays, files (cords)
//   reply-json.mjs      marked and plain JSON replies -> exact JS values
//   program-reply.mjs   deserializePteBinary's reply (JSON + fixups)
//   inspect-reply.mjs   inspect's reply (columns + joined names)
//   named-data.mjs      named data, store outputs, configs and serializer payloads
export { HeapCopies, heapBytes } from './marshal/heap.mjs';
export { Scope, encodeRequest, sourceRef } from './marshal/refs.mjs';
export { coreHost } from './marshal/host.mjs';
export { programPieces, programText } from './marshal/program-text.mjs';
export { programStream } from './marshal/program-stream.mjs';
export { blobs, call, cords, markedReply, plannedBytes, replyJson, replyText } from './marshal/output.mjs';
export { parseLossless, parseReply, resolveMarkers } from './marshal/reply-json.mjs';
export { readProgramReply } from './marshal/program-reply.mjs';
export { readInspectReply, summaryFromReply } from './marshal/inspect-reply.mjs';
export {
  entriesFromCore, entriesToCore, layoutFromCore, layoutToCore, pteConfigToCore, serializerPayloadFromCore,
  storeOutputFromCore, storeOutputToCore,
} from './marshal/named-data.mjs';
export { setOwn } from './marshal/own.mjs';
