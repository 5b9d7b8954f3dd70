// `executorch-pack extract PTE --delegate N -o FILE`: one delegate's
// processed blob, byte for byte, under the file-safety rules of ../files.mjs
// (never an input, never an existing file without --force, all or nothing).
import { UsageError, nonNegativeInt, parseArgs } from '../args.mjs';
import { namedInputs, withOutputs } from '../files.mjs';
import { openInputs, reportFetched } from '../inputs.mjs';
import { fmtBytes, printable, stringify } from '../format.mjs';

export const usage = `Usage: executorch-pack extract PTE --delegate N -o FILE [--method NAME]

Writes the processed blob of one delegate (what the backend receives at
init(): a compiled graph, a context binary) to FILE, byte for byte, whether
the .pte keeps it inline or in a segment. Delegates are numbered over the
methods in order, method 0's first (the "delegate" column of inspect's
tables, counted on), or within the method named by --method.

Options:
  --delegate N        the delegate to extract (required)
  --method NAME       count N within this method
  -o, --output FILE   where to write the blob (never one of the inputs)
  --force             replace FILE if it exists
  --json              print what was written as JSON
  --header 'Name: value'  HTTP header for a URL input (repeatable)
  --timeout SECONDS       idle timeout of each request to a URL (default 30)

Exit status: 0 written; 1 the file cannot be read or has no such delegate;
2 usage or I/O problems (including an output that exists, or is the input);
128+N when stopped by signal N (nothing written).
`;

const SPEC = {
  output: 'value', delegate: 'value', method: 'value', force: 'flag', json: 'flag', help: 'flag', header: 'list', timeout: 'value',
};

export async function run(argv, { init, help }) {
  const { options, positional } = parseArgs(argv, SPEC, 'extract');
  if (options.help) return help('extract');
  if (positional.length !== 1) throw new UsageError('extract takes exactly one PTE', 'extract');
  const delegate = nonNegativeInt(options, 'delegate', 'extract');
  if (delegate === undefined) throw new UsageError('extract needs --delegate N', 'extract');
  if (options.output === undefined || options.output === '') throw new UsageError('extract needs -o FILE', 'extract');
  const [ptePath] = positional;

  const et = await init();
  let input = null;
  try {
    return await withOutputs(async (outputs) => {
      [input] = await openInputs(et, [ptePath], { headers: options.header, env: process.env, timeout: options.timeout });
      const request = { delegate, output: 'artifact' };
      if (options.method !== undefined) request.method = options.method;
      const result = et.extract(input, request);
      // Refused before anything is written: the input itself (by file
      // identity: links and other spellings too), an existing file, a folder.
      await outputs.write([{ path: options.output, artifact: result.bytes }], { inputs: namedInputs([ptePath]), force: options.force });
      reportFetched([input]);
      const written = { path: options.output, bytes: result.size, method: result.method, delegate: result.index, id: result.id, location: result.location, offset: result.offset };
      if (options.json) {
        process.stdout.write(`${stringify({ schema: 1, command: 'extract', ok: true, ...written })}\n`);
      } else {
        process.stdout.write(`wrote ${printable(options.output)} (${fmtBytes(result.size)}): delegate ${result.index}` +
          `${result.id === null ? '' : ` (${printable(result.id)})`} of method ${printable(result.method)}, ${result.location}${result.offset === null ? '' : ` at offset ${result.offset}`}\n`);
      }
      return 0;
    });
  } finally {
    input?.close();
  }
}
