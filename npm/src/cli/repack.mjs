// `executorch-pack repack PTE [PTD...] -o OUT`: the model (the .pte and the
// .ptd files it uses) in, the repacked model out, written all-or-nothing
// under the file-safety rules of files.mjs.
import { basename, join } from 'node:path';
import { UsageError, alignment, checkTag, nonNegativeInt, parseArgs } from './args.mjs';
import { cliError, identity, inPlaceCase, outputPaths, withOutputs } from './files.mjs';
import { isUrl, openInputs as openSources, reportFetched } from './inputs.mjs';
import { fmtBytes, printable, stringify } from './format.mjs';
import { EtpackError } from '../errors.mjs';

export const REPACK_HELP = `Usage: executorch-pack repack PTE [PTD...] -o OUT [options]

Reads the model (PTE and the .ptd files it uses) and writes it with the
layout given below (deserialize + serialize without loading segment data).
What no option asks for stays as the input has it: delegate blobs in
segments stay in segments (equal blobs sharing one), inline ones stay
inline, and the segment alignment is the input's; the summary says what
moved.
Inputs are validated first: on errors nothing is written and the findings are
printed. Data files are written beside the output .pte as <tag>.ptd; the
.ptd files given keep their names.

Files are safe: OUT ending in '/' or naming an existing folder writes
OUT/<PTE's name> and its .ptd files inside that folder, nothing elsewhere. An
output never replaces a file the command reads, except in place (OUT is PTE,
or -o DIR/ with DIR the inputs' folder and --in-place: the model's files are
replaced together, and a note says so). Replacing any other existing file
needs --force; a FIFO, device or socket is never replaced (exit 2,
OUTPUT_NOT_REGULAR). Outputs are written to temporary files and renamed into
place together at the end; on an error or a signal nothing is changed.

Options:
  -o, --output OUT               the .pte to write, or a folder (required)
  --force                        replace existing files that are not inputs
                                 (never a FIFO, device or socket)
  --in-place                     allow -o DIR/ to replace the model's own
                                 files when DIR is the inputs' folder
  --allow-missing-data           repack even when .ptd files the PTE uses are
                                 not given (their tensors stay unresolved)
  --extract-delegate-segments    move inline delegate blobs into segments
  --inline-delegates             move delegate blobs in segments inline
  --segment-alignment N          segment alignment (default: the input's, or
                                 128 without segment data; 1 to 2^24)
  --constant-tensor-alignment N  alignment of each constant tensor (a power of
                                 two up to 2^24)
  --delegate-alignment N         alignment of inline delegate data (a power
                                 of two up to 2^24)
  --externalize[=TAG]            move constant tensors into TAG.ptd (default tag: model)
  --externalize-pattern GLOB     only tensors whose key matches GLOB ('*', '?');
                                 repeatable; implies --externalize
  --externalize-min-bytes N      leave tensors smaller than N bytes in the .pte
  --merge PTD                    add the named data of PTD to the output's
                                 data file (repeatable)
  --merge-tag TAG                tag of merged named data (default: model)
  --data-segment-alignment N     segment alignment of written .ptd files
                                 (default 128; 1 to 2^24)
  --weights FILE.safetensors     replace the constants stored in the .pte that
                                 the file names (by fully-qualified name; dtype
                                 and shape must match; repeatable)
  --json                         print a JSON summary of what was written
                                 (or of the refusal)
  --header 'Name: value'         HTTP header for URL inputs (repeatable); the
                                 segment data of URL inputs streams into OUT
  --timeout SECONDS              idle timeout of each request to a URL input
                                 (default 30; also a deadline of it plus the
                                 bytes asked for at 64 KiB/s)

A tag is a plain file name: not empty, no '/' or '\\', not starting with '.',
no control characters.

Exit status: 0 written; 1 refused because of the files' contents (invalid
input, missing .ptd data, an output that would not validate); 2 usage or I/O
problems (including an output that exists, or is an input); 128+N when
stopped by signal N (nothing written).
`;

const SPEC = {
  output: 'value', help: 'flag', json: 'flag', force: 'flag', 'in-place': 'flag', 'allow-missing-data': 'flag',
  'extract-delegate-segments': 'flag', 'inline-delegates': 'flag', 'segment-alignment': 'value', 'constant-tensor-alignment': 'value',
  'delegate-alignment': 'value', externalize: 'optional', 'externalize-pattern': 'list',
  'externalize-min-bytes': 'value', merge: 'list', 'merge-tag': 'value', 'data-segment-alignment': 'value',
  header: 'list', weights: 'list', timeout: 'value',
};

// The library's repack options from the command line.
function repackConfig(options) {
  const config = {
    // Given only when asked: otherwise the core keeps each delegate where it is.
    extractDelegateSegments: delegatePlacement(options),
    segmentAlignment: alignment(options, 'segment-alignment', 'repack'),
    constantTensorAlignment: alignment(options, 'constant-tensor-alignment', 'repack', { powerOfTwo: true }),
    delegateAlignment: alignment(options, 'delegate-alignment', 'repack', { powerOfTwo: true }),
    dataSegmentAlignment: alignment(options, 'data-segment-alignment', 'repack'),
  };
  for (const k of Object.keys(config)) if (config[k] === undefined) delete config[k];
  if (options.externalize === true) options.externalize = 'model';
  if (options.externalize !== undefined) checkTag(options.externalize, '--externalize', 'repack');
  const minBytes = nonNegativeInt(options, 'externalize-min-bytes', 'repack');
  if (options.externalize || options['externalize-pattern'] || minBytes !== undefined) {
    config.externalize = {
      tag: options.externalize ?? 'model',
      patterns: options['externalize-pattern'] ?? [],
      minBytes: minBytes ?? 0,
    };
  }
  if (options['merge-tag'] !== undefined) config.mergeTag = checkTag(options['merge-tag'], '--merge-tag', 'repack');
  if (options['allow-missing-data']) config.allowMissingData = true;
  return config;
}

function delegatePlacement(options) {
  if (options['extract-delegate-segments'] && options['inline-delegates']) {
    throw new UsageError('--extract-delegate-segments and --inline-delegates ask for opposite things; give one', 'repack');
  }
  if (options['extract-delegate-segments']) return true;
  if (options['inline-delegates']) return false;
  return undefined;
}

// What the repack moved of the delegates (nothing unless asked), as a line.
function delegateLine(d) {
  if (!d) return null;
  const total = d.inSegments + d.inline;
  if (total === 0) return null;
  const n = (k) => `${k} delegate blob${k === 1 ? '' : 's'}`;
  const moved = [];
  if (d.movedToSegments) moved.push(`moved ${n(d.movedToSegments)} into segments`);
  if (d.movedInline) moved.push(`moved ${n(d.movedInline)} inline`);
  if (moved.length) return `${moved.join(', ')} (now ${d.inSegments} in segments, ${d.inline} inline)`;
  return `kept ${n(total)} where they were (${d.inSegments} in segments, ${d.inline} inline)`;
}

// Glob with '*' (any run) and '?' (one character), as the core matches keys.
function globMatches(pattern, text) {
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[\\s\\S]*').replace(/\?/g, '[\\s\\S]');
  return new RegExp(`^${source}$`, 'u').test(text);
}

// Notes for an externalize that did less than asked: a pattern that moved
// nothing, or nothing moved at all.
function externalizeNotes(externalize, moved) {
  if (!externalize) return [];
  const notes = [];
  const keys = (moved ?? []).map((m) => m.key);
  for (const p of externalize.patterns) {
    if (!keys.some((k) => globMatches(p, k))) notes.push(`--externalize-pattern '${p}' matched no tensor that was moved`);
  }
  if (keys.length === 0) {
    notes.push(`externalize moved no tensor${externalize.minBytes ? ` (none of at least ${externalize.minBytes} bytes matched)` : ''}; the .pte keeps its constants`);
  }
  return notes;
}

// A data tag from the library names a file beside the output: it must not
// reach outside that folder.
function checkDataTag(tag) {
  if (tag === '' || tag === '.' || tag === '..' || /[/\\\u0000]/.test(tag)) {
    throw cliError('INVALID_TAG', `data tag '${tag}' is not usable as a file name`);
  }
  return tag;
}

// The file name of an input: a path's last part, a URL's last path segment.
export function inputName(arg) {
  if (!isUrl(arg)) return basename(arg);
  try {
    return basename(new URL(arg).pathname);
  } catch {
    return basename(arg.split(/[?#]/, 1)[0]);  // opening it says what is wrong with the URL
  }
}

// Opens the inputs (files or URLs): { pte, data, merge }, each also listed
// in `inputs` ({ path, id, file }: checked against the outputs, closed at
// the end). PTD files are keyed by their name; two with one name cannot be
// told apart.
async function openInputs(et, ptePath, ptdPaths, mergePaths, inputs, options) {
  const names = Object.create(null);  // keys are file names: '__proto__' stays a key
  for (const path of ptdPaths) {
    const name = inputName(path);
    if (Object.hasOwn(names, name)) throw new UsageError(`two data files are named ${name}; each .ptd the PTE uses must have its own name`, 'repack');
    names[name] = true;
  }
  const paths = [ptePath, ...ptdPaths, ...mergePaths];
  const sources = await openSources(et, paths, { headers: options.header, env: process.env, timeout: options.timeout });
  paths.forEach((path, i) => inputs.push({ path, id: isUrl(path) ? null : identity(path), file: sources[i] }));
  const data = Object.create(null);
  ptdPaths.forEach((path, i) => { data[inputName(path)] = sources[1 + i]; });
  return { pte: sources[0], data, merge: sources.slice(1 + ptdPaths.length) };
}

export async function cmdRepack(argv, { init, help }) {
  const { options, positional } = parseArgs(argv, SPEC, 'repack');
  if (options.help) return help('repack');
  if (positional.length < 1) throw new UsageError('repack needs a PTE', 'repack');
  if (options.output === undefined || options.output === '') throw new UsageError('repack needs -o OUT', 'repack');
  const config = repackConfig(options);
  const [ptePath, ...ptdPaths] = positional;

  const et = await init();
  const inputs = [];
  try {
    return await withOutputs(async (outputs) => {
      const { pte, data, merge } = await openInputs(et, ptePath, ptdPaths, options.merge ?? [], inputs, options);
      // Only options the user gave: a library without them must not see them.
      if (ptdPaths.length) config.data = data;
      // Refusals (invalid input, missing data, invalid output) come from here,
      // before any file is touched. Inputs stay on disk: only their heads are
      // read; segment bytes are streamed from them into the outputs.
      // --weights: constants replaced by name first (npm/src/weights.mjs), then repacked.
      const weights = (options.weights ?? []).map((path) => ({ path, id: identity(path) }));  // never replaced either
      const source = options.weights ? (await et.pteWithWeights(pte, options.weights, { output: 'artifact' })).pte : pte;
      const result = weightsRefusal(options.weights, () => et.repack(source, { ...config, merge, output: 'artifact' }));

      const { pte: outPte, dir, folder } = outputPaths(options.output, inputName(ptePath));
      // The .ptd files are staged and renamed first: a .pte never appears
      // without its data.
      const files = Object.entries(result.ptd).map(([tag, artifact]) => ({ path: join(dir, `${checkDataTag(tag)}.ptd`), artifact, tag }));
      files.push({ path: outPte, artifact: result.pte });
      const inPlace = inPlaceCase({ out: options.output, outPte, folder, input: inputs[0] },
        { inPlace: Boolean(options['in-place']), force: Boolean(options.force) });
      // Data streaming from URLs is slow: its progress is shown on any stderr.
      const replaced = await outputs.write(files, { inputs: [...inputs, ...weights], force: options.force, inPlace, folder: dir,
        progress: { remote: inputs.some((i) => i.file.bytesFetched !== undefined) } });
      reportFetched(inputs.map((i) => i.file));

      const notes = externalizeNotes(config.externalize, result.moved);
      if (replaced.length) notes.unshift(`replaced in place (the inputs' own files): ${replaced.join(', ')}`);
      const missing = result.missingKeys ?? [];
      if (missing.length) {
        const shown = missing.slice(0, 5).map((k) => `'${k}'`).join(', ');
        notes.push(`${missing.length} named-data key(s) (external tensors' or delegates') are in no output (--allow-missing-data): ${shown}${missing.length > 5 ? `, and ${missing.length - 5} more` : ''}`);
      }
      printSummary(options.json, files, result, notes);
      return 0;
    });
  } catch (error) {
    if (error?.code === 'MISSING_EXTERNAL_DATA') {
      error.hint ??= 'give the .ptd files the PTE uses after it (repack model.pte model.ptd -o OUT), or pass --allow-missing-data';
    }
    if (error?.code === 'MISSING_DELEGATE_DATA') {
      error.hint ??= 'give the .ptd files holding the delegates\' weights after the PTE (repack model.pte weights.ptd -o OUT), or pass --allow-missing-data';
    }
    throw error;
  } finally {
    for (const i of inputs) i.file.close();
  }
}

function printSummary(json, files, result, notes) {
  for (const n of notes) process.stderr.write(`executorch-pack: note: ${printable(n)}\n`);
  const written = files.map((f) => (f.tag === undefined ? { path: f.path, bytes: f.artifact.size } : { path: f.path, bytes: f.artifact.size, tag: f.tag }));
  written.unshift(written.pop());  // the .pte first
  if (json) {
    const doc = { schema: 1, command: 'repack', ok: true, files: written, moved: result.moved, mergedEntries: result.mergedEntries };
    if (result.delegates !== undefined) doc.delegates = result.delegates;
    if (result.segmentAlignment !== undefined) doc.segmentAlignment = { value: result.segmentAlignment, kept: result.segmentAlignmentKept };
    if (result.carriedEntries !== undefined) doc.carriedEntries = result.carriedEntries;
    if (result.missingKeys !== undefined) doc.missingKeys = result.missingKeys;
    process.stdout.write(`${stringify({ ...doc, notes })}\n`);
    return;
  }
  for (const w of written) process.stdout.write(`wrote ${printable(w.path)} (${fmtBytes(w.bytes)})\n`);
  const delegates = delegateLine(result.delegates);
  if (delegates) process.stdout.write(`${delegates}\n`);
  if (result.segmentAlignmentKept) process.stdout.write(`segment alignment ${result.segmentAlignment} (the input's)\n`);
  if (result.moved?.length) {
    const total = result.moved.reduce((a, m) => a + Number(m.bytes), 0);
    process.stdout.write(`externalized ${result.moved.length} tensor(s), ${fmtBytes(total)}\n`);
  }
  const entries = (n) => `${n} named data entr${Number(n) === 1 ? 'y' : 'ies'}`;
  if (result.carriedEntries) process.stdout.write(`carried ${entries(result.carriedEntries)} from the given .ptd files\n`);
  if (result.mergedEntries) process.stdout.write(`merged ${entries(result.mergedEntries)}\n`);
}

// With --weights the repack's input is the .pte with the new weights, not the
// user's (which validates): its refusal is the output's fault, and says so.
function weightsRefusal(weights, body) {
  try {
    return body();
  } catch (e) {
    if (!weights || e?.code !== 'INVALID_INPUT') throw e;
    const out = new EtpackError('INVALID_OUTPUT', `with the weights of ${weights.join(', ')} the .pte would not be valid: ${e.message}`, { cause: e });
    if (e.findings) out.findings = e.findings;
    throw out;
  }
}
