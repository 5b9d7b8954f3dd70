// `executorch-pack weights` (a .ptd from safetensors) and `export-weights`
// (a program's tensors out as safetensors); see npm/src/weights.mjs.
import { dirname, resolve } from 'node:path';
import { EtpackError } from '../errors.mjs';
import { alignment } from './args.mjs';
import { namedInputs, withOutputs } from './files.mjs';
import { fmtBytes, namesLine, printable, stringify } from './format.mjs';
import { isUrl, openInputs, reportFetched } from './inputs.mjs';

export const WEIGHTS_HELP = {
  weights: `Usage: executorch-pack weights PTE --from FILE.safetensors [--from ...] -o OUT.ptd [options]

Writes the .ptd holding PTE's external tensors, each tensor's bytes taken
from the safetensors files by fully-qualified name (after --rename), its
layout from the program. dtype and shape must match exactly: every missing or
mismatched tensor is listed and nothing is written (exit 1). Tensors of the
files that the program does not use are reported. A sharded checkpoint is
given by its index (--from model.safetensors.index.json).

Options:
  --from FILE             a .safetensors file or a sharded checkpoint's
                          .safetensors.index.json (repeatable)
  -o, --output OUT        the .ptd to write (required)
  --tag TAG               the data tag the .ptd stands for (reported only:
                          a .pte does not record tags)
  --rename FROM=TO        checkpoint names starting with FROM start with TO
                          instead (repeatable; the first match applies)
  --segment-alignment N   segment alignment of the .ptd (default 128)
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
    from: 'list', output: 'value', tag: 'value', rename: 'list', 'segment-alignment': 'value', force: 'flag', json: 'flag', help: 'flag', header: 'list', timeout: 'value',
  };
  const { options, positional } = parseArgs(argv, spec, 'weights');
  if (options.help) return help('weights');
  if (positional.length !== 1) throw new UsageError('weights takes exactly one PTE', 'weights');
  if (!options.from?.length) throw new UsageError('weights needs --from FILE.safetensors', 'weights');
  if (!options.output) throw new UsageError('weights needs -o OUT.ptd', 'weights');
  const rename = (options.rename ?? []).map((r) => {
    const eq = r.indexOf('=');
    if (eq <= 0) throw new UsageError(`--rename takes FROM=TO, got '${r}'`, 'weights');
    return [r.slice(0, eq), r.slice(eq + 1)];
  });
  const segmentAlignment = alignment(options, 'segment-alignment', 'weights');
  const et = await init();
  const [pte] = await openInputs(et, [positional[0]], { headers: options.header, env: process.env, timeout: options.timeout });
  const result = await et.ptdFromWeights(pte, options.from, {
    tag: options.tag, rename, segmentAlignment, output: 'artifact',
  });
  await writeNew(options.output, result.ptd, { force: options.force, inputs: [positional[0], ...options.from], remote: isUrl(positional[0]) });
  reportFetched([pte]);
  const summary = { schema: 1, command: 'weights', ok: true, file: options.output, bytes: result.ptd.size, tag: result.tag, written: result.written, unused: result.unused };
  if (options.json) {
    process.stdout.write(`${stringify(summary)}\n`);
  } else {
    process.stdout.write(`wrote ${printable(options.output)} (${fmtBytes(result.ptd.size)}): ${result.written.length} tensor(s)\n`);
    if (result.unused.length) {
      // The first names and how many more (a checkpoint can hold a million; --json lists them all).
      process.stdout.write(`${result.unused.length} tensor(s) of the checkpoint not used by the program: ${printable(namesLine(result.unused, 10))}\n`);
    }
  }
  return 0;
}

// A safetensors file without tensors is of no use to anyone: refused
// (exit 1, nothing written), with the reason and what to do in the hint.
function nothingToExport(et, pte, include, skipped) {
  const e = new EtpackError('NOTHING_TO_EXPORT', 'no tensor to export: nothing was written');
  const constants = et.inspect(pte, { kind: 'pte' }).constants.count;
  if (include?.length) {
    e.hint = `no exportable tensor name matches --include ${include.map((g) => `'${g}'`).join(', ')}; run without --include to export them all`;
  } else if (skipped.length) {
    e.hint = `every named tensor has a dtype safetensors cannot store (${skipped.length} skipped)`;
  } else if (constants > 0) {
    e.hint = `the program's ${constants} constant(s) have no names (it was exported without fully-qualified constant names) and it has no external tensors; export-weights writes tensors by name`;
  } else {
    e.hint = 'the program has no constants and no external tensors';
  }
  return e;
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
  const result = et.exportWeights(pte, data, { include: options.include, output: 'artifact' });
  if (result.tensors.length === 0) throw nothingToExport(et, pte, options.include, result.skipped);
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
