// `executorch-pack profile PTE [PTD...] --etdump FILE`: an ETDump joined to
// the program that ran (et.profile): per-operator and per-delegate times,
// the blocks and the method each ran; --trace-out writes Chrome trace-event
// JSON (Perfetto, chrome://tracing) under the file-safety rules of
// ../files.mjs (never an input, never an existing file without --force,
// all or nothing).
import { once } from 'node:events';
import { Artifact } from '../../artifact.mjs';
import { profileTraceText } from '../../profile-trace.mjs';
import { UsageError, parseArgs } from '../args.mjs';
import { namedInputs, withOutputs } from '../files.mjs';
import { openInputs, reportFetched } from '../inputs.mjs';
import { printable, stringify, table } from '../format.mjs';

export const usage = `Usage: executorch-pack profile PTE [PTD...] --etdump FILE [--json] [--trace-out FILE]

Joins an ETDump (.etdp, written by the runtime's event tracer) to the
program that ran: the method of each block (inferred from the instructions
its events name), the operator or delegate of each event, and per operator
and per delegate the count, total, min, p10, p50, p90, mean and max of its
calls over the execute runs, in the file's time unit (nanoseconds with the
runtime's default clock). The .ptd files are accepted but not needed.

Options:
  --etdump FILE        the ETDump (required)
  --method NAME        the method every block ran (skips inference)
  --methods A,-,B      each block's method in file order; - to infer one
  --json               print the whole join as JSON
  --trace-out FILE     write Chrome trace-event JSON (ui.perfetto.dev, chrome://tracing)
  --force              replace the --trace-out file if it exists
  --header 'Name: value'  HTTP header for URL inputs (repeatable)
  --timeout SECONDS       idle timeout of each request to a URL (default 30)

Exit status: 0 joined; 1 a file cannot be read; 2 usage or I/O problems.
`;

const SPEC = {
  etdump: 'value', method: 'value', methods: 'value', json: 'flag', 'trace-out': 'value', force: 'flag', help: 'flag',
  header: 'list', timeout: 'value',
};

const fixed = (v) => (typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(1) : String(v));

function statsTable(title, rows) {
  if (rows.length === 0) return '';
  return `${title}\n${table(['name', 'count', 'total', 'min', 'p10', 'p50', 'p90', 'mean', 'max'],
    rows.map((s) => [printable(s.name), s.count, s.total, s.min, s.p10, s.p50, s.p90, s.mean, s.max].map(fixed)))}\n`;
}

export function profileText(result) {
  const blocks = table(['block', 'name', 'method', 'run', 'events', 'method from'], result.blocks.map((b) =>
    [b.index, printable(b.name), b.method === null ? `? (${b.candidates.map(printable).join(', ')})` : printable(b.method),
      b.run ?? '', b.events.length, b.methodFrom ?? ''].map(String)));
  return `${blocks}\n${statsTable('operators', result.operators)}${statsTable('delegates', result.delegates)}` +
    result.warnings.map((w) => `warning: ${printable(w)}\n`).join('');
}

// --json as stringify writes it (2-space indents, BigInts as digits), an
// event at a time, waiting for stdout to drain: a million events are never
// one string (the text is ~4x the join's objects).
async function writeJson(doc) {
  let buffered = '';
  const emit = async (text) => {
    buffered += text;
    if (buffered.length < (1 << 20)) return;
    const chunk = buffered;
    buffered = '';
    if (!process.stdout.write(chunk)) await once(process.stdout, 'drain');
  };
  const indent = (text, n) => text.replace(/\n/g, `\n${' '.repeat(n)}`);
  const { blocks, ...rest } = doc;
  const keys = Object.keys(rest);
  const before = keys.slice(0, keys.indexOf('operators'));
  await emit(`{\n${before.map((k) => `  ${JSON.stringify(k)}: ${indent(stringify(rest[k]), 2)},\n`).join('')}  "blocks": [`);
  for (let b = 0; b < blocks.length; ++b) {
    const { events, ...head } = blocks[b];
    const text = stringify({ ...head, events: [] });
    await emit(`${b ? ',' : ''}\n    ${indent(text.slice(0, text.lastIndexOf('[]')), 4)}[`);
    for (let i = 0; i < events.length; ++i) await emit(`${i ? ',' : ''}\n        ${indent(stringify(events[i]), 8)}`);
    await emit(`${events.length ? '\n      ' : ''}]\n    }`);
  }
  const after = keys.slice(keys.indexOf('operators'));
  await emit(`${blocks.length ? '\n  ' : ''}]${after.map((k) => `,\n  ${JSON.stringify(k)}: ${indent(stringify(rest[k]), 2)}`).join('')}\n}\n`);
  if (buffered && !process.stdout.write(buffered)) await once(process.stdout, 'drain');
}

export async function run(argv, { init, help }) {
  const { options, positional } = parseArgs(argv, SPEC, 'profile');
  if (options.help) return help('profile');
  if (positional.length < 1) throw new UsageError('profile takes a PTE (and its PTD files)', 'profile');
  if (options.etdump === undefined || options.etdump === '') throw new UsageError('profile needs --etdump FILE', 'profile');
  if (options.method !== undefined && options.methods !== undefined) throw new UsageError('give --method or --methods, not both', 'profile');
  const traceOut = options['trace-out'];
  if (traceOut === '') throw new UsageError('--trace-out needs a FILE', 'profile');
  const methods = options.methods !== undefined ? options.methods.split(',').map((m) => (m === '-' ? null : m)) : options.method;

  const et = await init();
  const paths = [positional[0], options.etdump, ...positional.slice(1)];
  let inputs = [];
  try {
    // Without --trace-out nothing is written: a signal just ends it.
    return await withOutputs(async (outputs) => {
      inputs = await openInputs(et, paths, { headers: options.header, env: process.env, timeout: options.timeout });
      const [pte, etdump, ...data] = inputs;
      const result = et.profile(etdump, pte, { data, ...(methods === undefined ? {} : { methods }) });
      if (traceOut !== undefined) {
        // The trace's text encoded piece by piece: its bytes held once, never
        // its objects or one string of it as well.
        const encoder = new TextEncoder();
        const pieces = [];
        let size = 0;
        for (const text of profileTraceText(result)) {
          const bytes = encoder.encode(text);
          pieces.push({ bytes });
          size += bytes.byteLength;
        }
        await outputs.write([{ path: traceOut, artifact: new Artifact(pieces, size) }],
          { inputs: namedInputs(paths), force: options.force });
      }
      reportFetched(inputs);
      if (options.json) await writeJson({ schema: 1, command: 'profile', ok: true, ...result });
      else process.stdout.write(profileText(result) + (traceOut === undefined ? '' : `wrote ${printable(traceOut)} (Chrome trace-event JSON)\n`));
      return 0;
    }, { stopOnSignals: traceOut !== undefined });
  } finally {
    for (const input of inputs) input?.close?.();
  }
}
