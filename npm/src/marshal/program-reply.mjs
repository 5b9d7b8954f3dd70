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
// move, nothing calls into wasm here). In Node, ASCII text (P1's reply) is
// read as Latin-1 (a copy: 0.4 ms for P1's 2.2 MB, against 17.5 ms for
// Node 20's TextDecoder; deserialize of P1 went from 2.62x to 2.12x
// JSON.parse, medians of 22 interleaved pairs). A string of over ~1 MB made
// that way is external (its bytes in malloc until it is collected): five P1
// round trips in a fresh process peaked at 100.7-107.9 MiB, against
// 104.1-108.0 with TextDecoder (3 runs each; target 110).

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
