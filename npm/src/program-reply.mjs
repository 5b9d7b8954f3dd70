// A program coming back from the core (deserializePteBinary): the core
// streams it as JSON text with every value JSON.parse cannot give exactly
// (byte fields by reference, integers beyond 2^53, NaN/±Infinity) written as
// null and listed as a fixup [kind, value, ...path] (src/bindings/
// program_reply.h). One JSON.parse of text decoded straight from the heap,
// then a loop over the fixups: no walk over the whole tree, no token scan.
import { EtpackError } from './errors.mjs';
import { resolveMarkers, setOwn } from './marshal.mjs';

const UTF8 = new TextDecoder();
const LATIN1 = new TextDecoder('latin1');
const NodeBuffer = globalThis.Buffer;

// The reply's text starts with a space when it is all ASCII (a newline
// otherwise): ASCII decodes exactly as Latin-1, which Node's Buffer does
// several times faster than UTF-8 (a browser's decoder for 'latin1' is
// windows-1252, the same for ASCII). Decoded in place: the heap cannot
// move, nothing calls into wasm here.
function replyText(module, ptr, size) {
  const heap = module.HEAPU8;
  if (heap[ptr] !== 0x20) return UTF8.decode(heap.subarray(ptr, ptr + size));
  if (NodeBuffer) return NodeBuffer.from(heap.buffer, ptr, size).toString('latin1');
  return LATIN1.decode(heap.subarray(ptr, ptr + size));
}
const SPECIAL = { NaN, Infinity, '-Infinity': -Infinity };

// The Output's reply {fixups, mutable_data, named_data, program}, with
// the program's fixups applied and the blob markers of the rest resolved.
export function readProgramReply(module, out, blobs) {
  let reply;
  try {
    reply = JSON.parse(replyText(module, out.jsonPtr() >>> 0, out.jsonSize()));
  } catch (e) {
    throw new EtpackError('INTERNAL', `the core's reply could not be read: ${e?.message ?? e}`, { cause: e });
  }
  const program = reply.program;
  for (const fixup of reply.fixups) applyFixup(program, fixup, blobs);
  return {
    program,
    mutable_data: resolveMarkers(reply.mutable_data, blobs),
    named_data: resolveMarkers(reply.named_data, blobs),
  };
}

function applyFixup(program, fixup, blobs) {
  const [kind, value] = fixup;
  let node = program;
  const last = fixup.length - 1;
  for (let i = 2; i < last && node !== null && typeof node === 'object'; ++i) node = node[fixup[i]];
  if (node === null || typeof node !== 'object' || last < 2 || node[fixup[last]] !== null) {
    throw new EtpackError('INTERNAL', `the core's reply has a fixup for a path it does not hold: ${JSON.stringify(fixup.slice(2))}`);
  }
  let v;
  if (kind === 0) v = blobs[value];
  else if (kind === 1) v = BigInt(value);
  else v = SPECIAL[value];
  setOwn(node, fixup[last], v);
}
