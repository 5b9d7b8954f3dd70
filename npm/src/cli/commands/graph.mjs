// `executorch-pack graph PTE [PTD...]`: graph()'s plan graph as JSON, DOT or
// Mermaid, on stdout or to -o FILE under the file-safety rules of
// ../files.mjs (never an input, never an existing file without --force, all
// or nothing).
import { writeSync } from 'node:fs';
import { basename } from 'node:path';
import { Artifact } from '../../artifact.mjs';
import { UsageError, parseArgs } from '../args.mjs';
import { namedInputs, withOutputs } from '../files.mjs';
import { openInputs, reportFetched } from '../inputs.mjs';
import { fmtBytes, printable } from '../format.mjs';
import { jsonReply } from '../report.mjs';

export const usage = `Usage: executorch-pack graph PTE [PTD...] [--method NAME] [--format json|dot|mermaid] [--delegates collapse|expand] [-o FILE] [--json]

Prints the plan graph of a .pte: per method, one node per instruction
(kernel call with its operator, delegate call with its backend, blob size
and compile specs, JumpFalse with its target, Move, Free), nodes for the
inputs, outputs, constants, mutable buffers and external tensors (with the
.ptd file that holds each key, among the PTD files given), and the values
flowing between them (value index, dtype, shape). JSON lists every value
with its memory-plan range and where its bytes are in the file.

Options:
  --method NAME        only this method
  --format FORMAT      json (default), dot (Graphviz: dot -Tsvg) or mermaid
  --delegates MODE     collapse (default: one box per delegate call) or expand:
                       a delegate whose payload has a graph (XNNPACK, Vulkan,
                       MPS, MLX, native) is drawn as its own nodes and edges,
                       its inputs and outputs joined to the program's values
  --json               the graph as JSON on stdout (with "command" and "ok");
                       with -o FILE, what was written
  -o, --output FILE    write to FILE instead of stdout (never one of the inputs)
  --force              replace FILE if it exists
  --header 'Name: value'  HTTP header for URL inputs (repeatable)
  --timeout SECONDS       idle timeout of each request to a URL (default 30)

Exit status: 0 written; 1 the file is malformed or has no such method;
2 usage or I/O problems (including an output that exists, or is an input).
`;

const SPEC = {
  output: 'value', method: 'value', format: 'value', delegates: 'value', force: 'flag', help: 'flag', header: 'list', timeout: 'value', json: 'flag',
};
const FORMATS = ['json', 'dot', 'mermaid'];
const DELEGATES = ['collapse', 'expand'];

// Every byte of `chunk` to stdout, synchronously (a chunk is a view of the
// wasm heap, valid only during the call). Node opens a pipe on stdout
// non-blocking, where a full pipe fails the write with EAGAIN: the
// descriptor is made blocking first, so a write to a full pipe waits in the
// kernel until the reader has taken some (backpressure without polling or
// sleeping; the producer is paused, so memory stays at one chunk). A file
// never blocks; a terminal's stream is blocking already. A reader that
// went away (EPIPE: `| head`) ends the writing with CLOSED, which is not an
// error of the command (files.mjs quietOnClosedPipes).
const CLOSED = Symbol('stdout closed');
function stdoutWriter() {
  process.stdout._handle?.setBlocking?.(true);
  return (chunk) => {
    try {
      for (let at = 0; at < chunk.length;) at += writeSync(1, chunk, at, chunk.length - at);
    } catch (e) {
      throw e?.code === 'EPIPE' ? CLOSED : e;
    }
  };
}

export async function run(argv, { init, help }) {
  const { options, positional } = parseArgs(argv, SPEC, 'graph');
  if (options.help) return help('graph');
  if (positional.length < 1) throw new UsageError('graph needs a PTE file', 'graph');
  const format = options.format ?? 'json';
  if (!FORMATS.includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, got '${printable(format)}'`, 'graph');
  if (options.delegates !== undefined && !DELEGATES.includes(options.delegates)) {
    throw new UsageError(`--delegates must be one of ${DELEGATES.join(', ')}, got '${printable(options.delegates)}'`, 'graph');
  }
  if (options.output === '') throw new UsageError('-o needs a FILE', 'graph');
  if (options.json && format !== 'json' && options.output === undefined) {
    throw new UsageError(`--json prints the graph as JSON: --format ${format} needs -o FILE with it`, 'graph');
  }

  const et = await init();
  const inputs = await openInputs(et, positional, { headers: options.header, env: process.env, timeout: options.timeout });
  try {
    // Printing needs no signal handling of its own: a signal just ends it.
    return await withOutputs(async (outputs) => {
      // The data files by their base names (a name met twice gets #2), as validate names them.
      const data = Object.create(null);
      positional.slice(1).forEach((p, i) => {
        const base = basename(p.replace(/[?#].*$/, ''));
        let name = base;
        for (let n = 2; name in data; ++n) name = `${base}#${n}`;
        data[name] = inputs[i + 1];
      });
      const request = { data, format, delegates: options.delegates ?? 'collapse' };
      if (options.method !== undefined) request.method = options.method;
      if (options.output === undefined) {
        // On stdout a reply like every command's (graph.schema.json's fields,
        // with command and ok), streamed from the core's text: a large
        // graph's JS objects would cost several times its text.
        try {
          et._internal.graphTo(inputs[0], request, stdoutWriter());
        } catch (e) {
          if (e !== CLOSED && e?.cause !== CLOSED) throw e;  // the core's guard wraps what a callback throws
        }
        reportFetched(inputs);
        return 0;
      }
      // The whole text first (all or nothing): copies of the chunks.
      const pieces = [];
      let size = 0;
      et._internal.graphTo(inputs[0], request, (chunk) => {
        pieces.push({ bytes: chunk.slice() });
        size += chunk.length;
      });
      reportFetched(inputs);
      // Refused before anything is written: an input (by file identity:
      // links and other spellings too), an existing file, a folder.
      await outputs.write([{ path: options.output, artifact: new Artifact(pieces, size) }],
        { inputs: namedInputs(positional), force: options.force });
      process.stderr.write(`wrote ${printable(options.output)} (${fmtBytes(size)}, ${format})\n`);
      if (options.json) process.stdout.write(jsonReply('graph', { path: options.output, bytes: size, format }));
      return 0;
    }, { stopOnSignals: options.output !== undefined });
  } finally {
    for (const input of inputs) input.close?.();
  }
}
