// A program coming back from the core (deserializePteBinary): the core
// streams it as JSON text with every value JSON.parse cannot give exactly
// (byte fields by reference, integers beyond 2^53, NaN/±Infinity) written as
// null and listed as a fixup [kind, value, ...path] (src/ops/
// program_reply.h). One JSON.parse of text decoded straight from the heap,
// then a loop over the fixups: no walk over the whole tree, no token scan.
import { EtpackError } from '../errors.mjs';
import { heapText } from './heap.mjs';
import { resolveMarkers } from './reply-json.mjs';
import { setOwn } from './own.mjs';
import { nanBitsValue } from './nan-bits.mjs';

// The reply text is decoded in place (heap.mjs heapText: the heap cannot
// move, nothing calls into wasm here) by TextDecoder, into a string of the JS heap. Not as Latin-1 by Node's
// Buffer#toString, though that is a copy where TextDecoder is a UTF-8 pass
// (P1's 2.2 MB reply in 0.2 ms against 7 ms): Buffer makes a string of
// over ~1 MB external, its bytes in malloc, and those stay until a full
// collection. Five P1 round trips in a fresh process peaked at 97.5-103.4
// MiB this way and at 99.3-106.8 MiB with Buffer (10 runs each,
// interleaved), against a target of 110; deserialize of P1 went from 1.8x
// to 2.4x JSON.parse (target 3x). TextDecoder('latin1') (windows-1252)
// went through a wider string and peaked at 106-121 MiB.

const SPECIAL = { NaN, Infinity, '-Infinity': -Infinity };

// The Output's reply {fixups, mutable_data, named_data, program}, with
// the program's fixups applied and the blob markers of the rest resolved.
export function readProgramReply(module, out, blobs) {
  let reply;
  try {
    reply = JSON.parse(heapText(module, out.jsonPtr(), out.jsonSize()));
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
  else if (Object.hasOwn(SPECIAL, value)) v = SPECIAL[value];
  else v = nanBitsValue(String(value).slice(1));  // "B<hex>": a NaN other than the canonical one
  setOwn(node, fixup[last], v);
}
