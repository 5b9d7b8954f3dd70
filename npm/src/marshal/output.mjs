// A core call's Output (src/bindings/output.h): its verdict, its JSON
// reply, the byte arrays it returns (blobList) and the files it wrote
// (cords). Flat lists of four numbers per item: [kind, ptr or source id,
// length, offset].
import { EtpackError } from '../errors.mjs';
import { Artifact } from '../artifact.mjs';
import { heapCopy, heapView } from './heap.mjs';
import { parseLossless, parseReply } from './reply-json.mjs';

const HEAP = 0;  // bytes the core wrote: [0, ptr, length, -]
const ZEROS = 1;  // a run of zero padding: [1, -, length, -]
// anything else: a range of a registered source: [2, id, length, offset]

// Runs a core call and turns a failed Output into a thrown EtpackError. The
// Output is always deleted.
export function call(fn) {
  const out = fn();
  try {
    if (!out.ok()) throw withDetails(new EtpackError(out.code(), out.message()), out.json());
    return out;
  } catch (e) {
    out.delete();
    throw e;
  }
}

// A refusal's details, which a failed Output carries as JSON (repack:
// `keys` for MISSING_EXTERNAL_DATA, `findings` for INVALID_INPUT /
// INVALID_OUTPUT), become properties of the error.
function withDetails(error, json) {
  if (!json) return error;
  let details;
  try {
    details = parseLossless(json);
  } catch {
    return error;
  }
  if (Array.isArray(details?.keys)) error.keys = details.keys;
  if (Array.isArray(details?.findings)) error.findings = details.findings;
  return error;
}

// Returned byte arrays: views of the caller's own sources where possible;
// ranges of a file or Blob come back as lazy Artifacts (nothing read).
export function blobs(module, sources, out) {
  const flat = out.blobList();
  const list = [];
  for (let i = 0; i < flat.length; i += 4) {
    const len = flat[i + 2];
    if (flat[i] === 2) {
      const entry = sources.get(flat[i + 1]);
      const view = entry.view(flat[i + 3], len);
      list.push(view ?? new Artifact([{ entry, offset: flat[i + 3], length: len }], len));
    } else {
      list.push(heapCopy(module, flat[i + 1], len));  // heap bytes must outlive the call: copy
    }
  }
  return list;
}

// The files of an Output as Artifacts: the core's own bytes (headers,
// flatbuffers: small) are copied out of the heap here, before the Output is
// freed; ranges of inputs stay references (weights are copied only when the
// artifact is materialised). With `heapViews` the core's bytes stay views
// of the heap instead: only for artifacts materialised at once, while the
// Output lives and nothing can call into wasm (which could grow and move
// the heap).
export function cords(module, sources, out, heapViews = false) {
  const list = [];
  for (let i = 0; i < out.cordCount(); ++i) {
    const flat = out.cordPieces(i);
    const pieces = [];
    for (let k = 0; k < flat.length; k += 4) {
      const length = flat[k + 2];
      if (flat[k] === HEAP) {
        pieces.push({ bytes: heapViews ? heapView(module, flat[k + 1], length) : heapCopy(module, flat[k + 1], length) });
      } else if (flat[k] === ZEROS) {
        pieces.push({ zeros: length });
      } else {
        pieces.push({ entry: sources.get(flat[k + 1]), offset: flat[k + 3], length });
      }
    }
    list.push(new Artifact(pieces, out.cordSize(i)));
  }
  return list;
}

// The total size of the files an Output planned.
export function plannedBytes(out) {
  let planned = 0;
  for (let i = 0; i < out.cordCount(); ++i) planned += out.cordSize(i);
  return planned;
}

// A marked JSON reply (reply-json.mjs parseReply) with its byte arrays:
// store outputs, .ptd payloads.
export const markedReply = (module, sources, out) => parseReply(out.json(), blobs(module, sources, out));

// A plain JSON reply (no markers: small summaries like repack's tags).
export const replyJson = (out) => JSON.parse(out.json());

// The reply's JSON text as it is (programToJson's result).
export const replyText = (out) => out.json();
