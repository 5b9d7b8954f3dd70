// graph()'s reply from the core (src/bindings/graph_api.cpp): the Output's
// text is the graph's JSON, or the DOT / Mermaid text itself. Decoded in
// place from the heap (a 20,000-instruction program's graph is megabytes:
// out.json() would copy it twice more).
import { EtpackError } from '../errors.mjs';
import { heapText, heapView } from './heap.mjs';
import { JsonIndenter } from './json-indent.mjs';
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

// The same reply written to write(chunk) as the CLI prints a command's JSON
// ({schema, command: "graph", ok: true, methods}, indented by 2, then a
// newline); DOT and Mermaid text as it is. Chunks are views of a buffer
// reused after each call. Nothing calls into wasm meanwhile, so the heap
// view stays valid.
const HEAD = '{"schema": 1, "methods": ';
const PIECE = 1 << 22;

export function writeGraphReply(module, out, format, write) {
  const bytes = heapView(module, out.jsonPtr(), out.jsonSize());
  if (format !== 'json') {
    for (let at = 0; at < bytes.length; at += PIECE) write(bytes.subarray(at, at + PIECE));
    return;
  }
  const head = new TextDecoder().decode(bytes.subarray(0, HEAD.length));
  if (head !== HEAD) throw new EtpackError('INTERNAL', `the core's graph reply begins with ${JSON.stringify(head)}`);
  const indenter = new JsonIndenter(write, 1);
  indenter.raw('{\n  "schema": 1,\n  "command": "graph",\n  "ok": true,\n  "methods": ');
  for (let at = HEAD.length; at < bytes.length; at += PIECE) indenter.push(bytes.subarray(at, Math.min(bytes.length, at + PIECE)));
  indenter.raw('\n');
  indenter.flush();
}
