// graph()'s reply from the core (src/bindings/graph_api.cpp): the Output's
// text is the graph's JSON, or the DOT / Mermaid text itself. Decoded in
// place from the heap (a 20,000-instruction program's graph is megabytes:
// out.json() would copy it twice more).
import { EtpackError } from '../errors.mjs';
import { heapText } from './heap.mjs';
import { parseLossless } from './reply-json.mjs';

export function readGraphReply(module, out, format) {
  let text;
  try {
    text = heapText(module, out.jsonPtr(), out.jsonSize());
  } catch (e) {
    throw new EtpackError('INTERNAL', `the core's reply could not be read: ${e?.message ?? e}`, { cause: e });
  }
  return format === 'json' ? parseLossless(text) : text;
}

