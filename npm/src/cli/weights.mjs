// `executorch-pack weights` (a .ptd from safetensors) and `export-weights`
// (a program's tensors out as safetensors); see npm/src/weights.mjs.
import { dirname, resolve } from 'node:path';
import { alignment } from './args.mjs';
import { namedInputs, withOutputs } from './files.mjs';
import { fmtBytes, namesLine, printable, stringify } from './format.mjs';
import { isUrl, openInputs, reportFetched } from './inputs.mjs';

export const WEIGHTS_HELP = {
  weights: `Usage: executorch-pack weights PTE [PTD...] --from FILE.safetensors [--from ...] -o OUT.ptd [options]

Writes the .ptd holding PTE's external tensors, each tensor's bytes taken
from the safetensors files by fully-qualified name (after --rename), its
layout from the program. dtype and shape must match exactly: every missing or
mismatched tensor is listed and nothing is written (exit 1). Tensors of the
files that the program does not use are reported. A sharded checkpoint is
given by its index (--from model.safetensors.index.json).

PTD files (the program's .ptd files) are carried: every entry of theirs the
checkpoints do not replace (a backend's data, a tensor the checkpoints lack)
is written too, bytes, alignment and layout untouched, and the summary
lists them. Only --drop KEY leaves one out.

Options:
  --from FILE             a .safetensors file or a sharded checkpoint's
                          .safetensors.index.json (repeatable)
  -o, --output OUT        the .ptd to write (required)
  --tag TAG               the data tag the .ptd stands for (reported only:
                          a .pte does not record tags)
  --rename FROM=TO        checkpoint names starting with FROM start with TO
                          instead (repeatable; the first match applies)
  --segment-alignment N   segment alignment of the .ptd (default 128)
  --drop KEY              leave out this entry of the PTD files (repeatable;
                          a KEY that is no carried entry is refused)
  --force                 replace OUT if it exists
  --json                  print a JSON summary
  --header 'Name: value'  HTTP header for a URL PTE (repeatable)
  --timeout SECONDS       idle timeout of each request to a URL (default 30)
`,
  'export-weights': `Usage: executorch-pack export-weights PTE [PTD...] -o OUT.safetensors [options]

Writes every named constant of PTE and every external tensor (bytes from the
PTD files) into one safetensors file, streamed (no whole-model buffer). Its
__metadata__ names the source files. Tensors whose dtype safetensors has no
name for are skipped and listed. Tensors are exported by name: a program
whose constants have no names (and that has no external tensors) has nothing
to export, which is refused with NOTHING_TO_EXPORT and a hint (exit 1,
nothing written).

Options:
  -o, --output OUT   the .safetensors to write (required)
  --include GLOB     only tensors whose name matches ('*', '?'; repeatable)
  --force            replace OUT if it exists
  --json             print a JSON summary
  --header 'Name: value'  HTTP header for URL inputs (repeatable)
  --timeout SECONDS       idle timeout of each request to a URL (default 30)
`,
};

// Files are sacred (files.mjs): the output is streamed into an exclusive
// temporary in its folder and renamed into place at the end (nothing left
// on failure); it never replaces an input, and replaces an existing file
// only with --force. A signal removes the temporary and the process dies of
// it (no INTERRUPTED of its own, unlike repack).
// Progress as for repack (progress.mjs): on a terminal, or when data comes
// from URLs.
function writeNew(path, artifact, { force, inputs, remote }) {
  return withOutputs((outputs) => outputs.write([{ path, artifact }],
    { inputs: namedInputs(inputs), force, folder: dirname(resolve(path)), progress: { remote } }), { stopOnSignals: false });
}

export async function cmdWeights(argv, { init, parseArgs, UsageError, help }) {
  const spec = {
    from: 'list', output: 'value', tag: 'value', rename: 'list', drop: 'list', 'segment-alignment': 'value', force: 'flag', json: 'flag', help: 'flag', header: 'list', timeout: 'value',
  };
  const { options, positional } = parseArgs(argv, spec, 'weights');
  if (options.help) return help('weights');
  if (positional.length < 1) throw new UsageError('weights needs a PTE', 'weights');
  if (options.drop?.length && positional.length < 2) throw new UsageError('--drop leaves out entries of the PTD files: give them after the PTE', 'weights');
  if (!options.from?.length) throw new UsageError('weights needs --from FILE.safetensors', 'weights');
  if (!options.output) throw new UsageError('weights needs -o OUT.ptd', 'weights');
  const rename = (options.rename ?? []).map((r) => {
    const eq = r.indexOf('=');
    if (eq <= 0) throw new UsageError(`--rename takes FROM=TO, got '${r}'`, 'weights');
    return [r.slice(0, eq), r.slice(eq + 1)];
  });
  const segmentAlignment = alignment(options, 'segment-alignment', 'weights');
  const et = await init();
  const [pte, ...ptds] = await openInputs(et, positional, { headers: options.header, env: process.env, timeout: options.timeout });
  const data = positional.slice(1).map((path, i) => [path, ptds[i]]);
  const result = await et.ptdFromWeights(pte, options.from, {
    tag: options.tag, rename, segmentAlignment, output: 'artifact', data: Object.fromEntries(data), drop: options.drop,
  });
  await writeNew(options.output, result.ptd, { force: options.force, inputs: [...positional, ...options.from], remote: positional.some(isUrl) });
  reportFetched([pte, ...ptds]);
  const summary = {
    schema: 1, command: 'weights', ok: true, file: options.output, bytes: result.ptd.size, tag: result.tag, written: result.written, unused: result.unused,
    carried: result.carried, dropped: result.dropped,
  };
  if (options.json) {
    process.stdout.write(`${stringify(summary)}\n`);
  } else {
    process.stdout.write(`wrote ${printable(options.output)} (${fmtBytes(result.ptd.size)}): ${result.written.length} tensor(s)\n`);
    if (result.carried.length) {
      process.stdout.write(`carried ${result.carried.length} entr${result.carried.length === 1 ? 'y' : 'ies'} of the given .ptd files unchanged: ${printable(namesLine(result.carried.map((c) => c.key), 10))}\n`);
    }
    if (result.dropped.length) process.stdout.write(`dropped (--drop): ${printable(namesLine(result.dropped, 10))}\n`);
    if (result.unused.length) {
      // The first names and how many more (a checkpoint can hold a million; --json lists them all).
      process.stdout.write(`${result.unused.length} tensor(s) of the checkpoint not used by the program: ${printable(namesLine(result.unused, 10))}\n`);
    }
  }
  return 0;
}

export async function cmdExportWeights(argv, { init, parseArgs, UsageError, help }) {
  const spec = { output: 'value', include: 'list', force: 'flag', json: 'flag', help: 'flag', header: 'list', timeout: 'value' };
  const { options, positional } = parseArgs(argv, spec, 'export-weights');
  if (options.help) return help('export-weights');
  if (positional.length < 1) throw new UsageError('export-weights needs a PTE', 'export-weights');
  if (!options.output) throw new UsageError('export-weights needs -o OUT.safetensors', 'export-weights');
  const et = await init();
  const [pte, ...ptds] = await openInputs(et, positional, { headers: options.header, env: process.env, timeout: options.timeout });
  const data = Object.fromEntries(positional.slice(1).map((p, i) => [p, ptds[i]]));
  // Nothing to export is the library's NOTHING_TO_EXPORT (exit 1, its hint).
  const result = et.exportWeights(pte, data, { include: options.include, output: 'artifact' });
  await writeNew(options.output, result.safetensors, { force: options.force, inputs: positional, remote: positional.some(isUrl) });
  reportFetched([pte, ...ptds]);
  if (options.json) {
    process.stdout.write(`${stringify({ schema: 1, command: 'export-weights', ok: true, file: options.output, bytes: result.safetensors.size, tensors: result.tensors, skipped: result.skipped })}\n`);
  } else {
    process.stdout.write(`wrote ${printable(options.output)} (${fmtBytes(result.safetensors.size)}): ${result.tensors.length} tensor(s)\n`);
    for (const s of result.skipped) process.stdout.write(`skipped ${printable(s.name)}: ${printable(s.reason)}\n`);
  }
  return 0;
}
