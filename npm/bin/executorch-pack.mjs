#!/usr/bin/env node
// executorch-pack CLI: inspect, validate and repack ExecuTorch .pte/.ptd files.
// Exit codes: 0 success (validate: no errors), 1 validate found errors or an
// operation failed on the file's contents (coded error), 2 usage or I/O problems.
import { readFileSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import init from '../index.node.mjs';
import { fmtBytes, indent, printable, stringify, table } from '../src/cli/format.mjs';
import { IO_CODES, openInputs, progressPrinter, reportFetched } from '../src/cli/inputs.mjs';

const HELP = {
  main: `executorch-pack — inspect, validate and repack ExecuTorch .pte/.ptd files

Usage:
  executorch-pack inspect FILE [--json]
  executorch-pack validate PTE [PTD...] [--json]
  executorch-pack repack PTE -o OUT [options]
  executorch-pack --version
  executorch-pack <command> --help

Every FILE, PTE or PTD may be an http(s):// URL: only the bytes needed are
fetched, by range requests. --header 'Name: value' (repeatable) is sent to
that URL's host; HF_TOKEN (environment) only to Hugging Face Hub hosts.

Commands:
  inspect    summary of a .pte or .ptd: methods, operators, delegates,
             constants, size breakdown and a map of every byte range
  validate   check a .pte (with its .ptd files) or a .ptd; exit 0 when clean,
             1 when errors were found, 2 on usage or I/O problems
  repack     rewrite a .pte with a new layout; move constants out into a .ptd
             or merge .ptd files in
`,
  inspect: `Usage: executorch-pack inspect FILE [--json]

Prints a summary of a .pte (program) or .ptd (data) file: methods with their
inputs, outputs, operators and delegates, constants, named data, bytes by
category and the segment map (every byte range of the file).

Options:
  --json     print inspect()'s full JSON summary instead of tables
  --header 'Name: value'  HTTP header for a URL input (repeatable)
`,
  validate: `Usage: executorch-pack validate PTE [PTD...] [--json]

Checks a .pte and the .ptd files it uses (external tensors are resolved
against them), or a .ptd on its own. Prints every error and warning with its
code and location.

Exit status: 0 no errors (warnings allowed), 1 errors found, 2 usage or I/O
problem.

Options:
  --json     print the report as JSON ({ok, errors, warnings})
  --header 'Name: value'  HTTP header for URL inputs (repeatable)
`,
  repack: `Usage: executorch-pack repack PTE -o OUT [options]

Reads PTE and writes OUT with the layout given below (deserialize + serialize
without loading segment data). Data files are written next to OUT as
<tag>.ptd.

Options:
  -o, --output OUT               the .pte to write (required)
  --extract-delegate-segments    move inline delegate blobs into segments
  --segment-alignment N          segment alignment (default 128)
  --constant-tensor-alignment N  alignment of each constant tensor
  --delegate-alignment N         alignment of inline delegate data
  --externalize[=TAG]            move constant tensors into TAG.ptd (default tag: model)
  --externalize-pattern GLOB     only tensors whose name matches GLOB ('*', '?');
                                 repeatable; implies --externalize
  --externalize-min-bytes N      leave tensors smaller than N bytes in the .pte
  --merge PTD                    add the named data of PTD to the output's
                                 data file (repeatable)
  --merge-tag TAG                tag of merged named data (default: model)
  --data-segment-alignment N     segment alignment of written .ptd files (default 128)
  --json                         print a JSON summary of what was written
  --header 'Name: value'         HTTP header for URL inputs (repeatable); the
                                 segment data of URL inputs streams into OUT
`,
};

class UsageError extends Error {
  constructor(message, command) {
    super(message);
    this.command = command;
  }
}

function fail(code, message) {
  // Messages may quote names from a file: escaped like every other output line.
  const lines = String(message).split('\n').map(printable).join('\n');
  process.stderr.write(`executorch-pack: error [${printable(code)}]: ${lines}\n`);
}

// Streams an artifact to a temporary file next to `path`, then renames it
// into place: an input that is also an output (repack in place) keeps being
// read from its open descriptor, and no half-written file is left behind.
async function writeOutput(path, artifact, onProgress) {
  const temp = `${path}.${process.pid}.partial`;
  try {
    mkdirSync(dirname(resolve(path)), { recursive: true });
    await artifact.writeTo(temp, { onProgress });
    renameSync(temp, path);
  } catch (e) {
    rmSync(temp, { force: true });
    if (e.code && e.code !== 'IO_ERROR' && !/^E[A-Z]+$/.test(e.code)) throw e;
    const err = new Error(`cannot write ${path}: ${e.message}`);
    err.code = 'IO_ERROR';
    throw err;
  }
}

// Parses argv against a table of options: {name: 'flag' | 'value' | 'list' | 'optional'}.
function parseArgs(argv, spec, command) {
  const options = {};
  const positional = [];
  const aliases = { '-o': '--output', '-h': '--help' };
  for (let i = 0; i < argv.length; ++i) {
    let arg = argv[i];
    if (arg === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positional.push(arg);
      continue;
    }
    arg = aliases[arg] ?? arg;
    let name = arg.replace(/^--/, '');
    let inline;
    const eq = name.indexOf('=');
    if (eq >= 0) {
      inline = name.slice(eq + 1);
      name = name.slice(0, eq);
    }
    const kind = spec[name];
    if (!kind) throw new UsageError(`unknown option ${argv[i]}`, command);
    if (kind === 'flag') {
      if (inline !== undefined) throw new UsageError(`--${name} takes no value`, command);
      options[name] = true;
    } else if (kind === 'optional') {
      options[name] = inline ?? true;
    } else {
      let value = inline;
      if (value === undefined) {
        if (i + 1 >= argv.length) throw new UsageError(`--${name} needs a value`, command);
        value = argv[++i];
      }
      if (kind === 'list') (options[name] ??= []).push(value);
      else options[name] = value;
    }
  }
  return { options, positional };
}

function positiveInt(options, name, command, { allowZero = false } = {}) {
  const v = options[name];
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || (!allowZero && Number(v) === 0) || !Number.isSafeInteger(Number(v))) {
    throw new UsageError(`--${name} must be a ${allowZero ? 'non-negative' : 'positive'} integer, got '${v}'`, command);
  }
  return Number(v);
}

// --- formatting --------------------------------------------------------------

const shape = (s) => (s ? `[${s.join(', ')}]` : '-');
const ioLine = (v) => printable(`${v.type}${v.dtype ? ` ${v.dtype}` : ''}${v.shape ? ` ${shape(v.shape)}` : ''} (value ${v.index})`);

function formatInspect(path, s) {
  const out = [];
  out.push(`${printable(path)}: ${s.format === 'pte' ? 'ExecuTorch program (.pte)' : 'ExecuTorch data file (.ptd)'}, ${fmtBytes(s.fileSize)}, identifier ${printable(s.identifier)}`);
  if (s.header) {
    const h = s.header;
    out.push(`header: ${printable(Object.entries(h).map(([k, v]) => `${k} ${v}`).join(', '))}`);
  } else {
    out.push('header: none (no segments)');
  }
  if (s.segmentAlignment !== null && s.segmentAlignment !== undefined) out.push(`segment alignment: ${s.segmentAlignment}`);
  if (s.format === 'pte') {
    out.push('', `Methods (${s.methods.length})`);
    for (const m of s.methods) {
      out.push(`  ${m.name === null || m.name === undefined ? '(unnamed)' : printable(m.name)}: ${m.valueCount} values, ${m.chainCount} chain(s), ${m.instructionCount} instruction(s)`);
      for (const v of m.inputs) out.push(`    in  ${ioLine(v)}`);
      for (const v of m.outputs) out.push(`    out ${ioLine(v)}`);
      if (m.operators.length) {
        out.push('', indent(table(['operator', 'overload', 'calls'], m.operators.map((o) => [o.name, o.overload ?? '', o.count])), 4));
      }
      if (m.delegates.length) {
        out.push('', indent(table(['delegate', 'id', 'location', 'size', 'offset'],
          m.delegates.map((d) => [d.index, d.id, d.location, d.size, d.offset])), 4));
      }
      out.push('');
    }
    const c = s.constants;
    out.push(`Constants: ${c.count} tensor(s) in ${c.storage} storage${c.segment !== null ? ` (segment ${c.segment})` : ''}, ${fmtBytes(c.totalBytes)}` +
      (c.largest ? `; largest: #${c.largest.index} ${fmtBytes(c.largest.size)}` : ''));
    if (s.mutableData) out.push(`Mutable data: ${s.mutableData.count} buffer(s), ${fmtBytes(s.mutableData.totalBytes)}`);
    if (s.externalTensors.length) {
      out.push('', `External tensors (${s.externalTensors.length})`,
        indent(table(['name', 'dtype', 'shape', 'bytes', 'mutable'], s.externalTensors.map((t) => [t.name, t.dtype, shape(t.shape), t.size, t.mutable ? 'yes' : 'no'])), 2));
    }
  }
  if (s.namedData.length) {
    out.push('', `Named data (${s.namedData.length})`);
    const rows = s.namedData.map((n) => (s.format === 'ptd' ? [n.key, n.segment, n.size, n.dtype, shape(n.shape)] : [n.key, n.segment, n.size]));
    out.push(indent(table(s.format === 'ptd' ? ['key', 'segment', 'bytes', 'dtype', 'shape'] : ['key', 'segment', 'bytes'], rows), 2));
  }
  out.push('', 'Size breakdown');
  const total = Number(s.fileSize) || 1;
  out.push(indent(table(['category', 'bytes', 'share'], Object.entries(s.bytesByCategory)
    .map(([k, v]) => [k, v, `${((Number(v) / total) * 100).toFixed(1)}%`])), 2));
  out.push('', 'Segment map');
  out.push(indent(table(['start', 'end', 'size', 'kind', 'segment', 'owner'], s.segmentMap
    .map((r) => [r.start, r.end, r.size, r.kind + (r.clipped ? ' (clipped)' : ''), r.segment, r.owners.join(', ')])), 2));
  return out.join('\n');
}

function formatFinding(f, kind) {
  const where = [f.file, f.offset !== null && f.offset !== undefined ? `offset ${f.offset}` : null, f.path].filter(Boolean).join(' ');
  return printable(`${kind} ${f.code}${where ? ` at ${where}` : ''}: ${f.message}`);
}

// --- commands ----------------------------------------------------------------

async function cmdInspect(argv) {
  const { options, positional } = parseArgs(argv, { json: 'flag', help: 'flag', header: 'list' }, 'inspect');
  if (options.help) return help('inspect');
  if (positional.length !== 1) throw new UsageError('inspect takes exactly one FILE', 'inspect');
  // Files are opened, not loaded: only their heads are read.
  const et = await init();
  const [input] = await openInputs(et, positional, { headers: options.header, env: process.env });
  const summary = et.inspect(input);
  reportFetched([input]);
  process.stdout.write(options.json ? `${stringify(summary)}\n` : `${formatInspect(positional[0], summary)}\n`);
  return 0;
}

async function cmdValidate(argv) {
  const { options, positional } = parseArgs(argv, { json: 'flag', help: 'flag', header: 'list' }, 'validate');
  if (options.help) return help('validate');
  if (positional.length < 1) throw new UsageError('validate needs a PTE (or PTD) file', 'validate');
  const [main, ...rest] = positional;
  const et = await init();
  const inputs = await openInputs(et, positional, { headers: options.header, env: process.env });
  const pte = inputs[0];
  const ptds = {};
  rest.forEach((p, i) => {
    const base = basename(p.replace(/[?#].*$/, ''));
    let name = base;
    for (let n = 2; name in ptds; ++n) name = `${base}#${n}`;
    ptds[name] = inputs[i + 1];
  });
  const report = await et.withFetchedRanges(() => et.validate(pte, ptds));  // URL inputs: padding past the prefetch
  reportFetched(inputs);
  if (options.json) {
    process.stdout.write(`${stringify(report)}\n`);
  } else {
    for (const f of report.errors) process.stdout.write(`${formatFinding(f, 'error')}\n`);
    for (const f of report.warnings) process.stdout.write(`${formatFinding(f, 'warning')}\n`);
    const files = printable([main, ...rest].join(', '));
    process.stdout.write(report.ok
      ? `${files}: OK (${report.warnings.length} warning(s))\n`
      : `${files}: ${report.errors.length} error(s), ${report.warnings.length} warning(s)\n`);
  }
  return report.ok ? 0 : 1;
}

async function cmdRepack(argv) {
  const spec = {
    output: 'value', help: 'flag', json: 'flag',
    'extract-delegate-segments': 'flag', 'segment-alignment': 'value', 'constant-tensor-alignment': 'value',
    'delegate-alignment': 'value', externalize: 'optional', 'externalize-pattern': 'list',
    'externalize-min-bytes': 'value', merge: 'list', 'merge-tag': 'value', 'data-segment-alignment': 'value', header: 'list',
  };
  const { options, positional } = parseArgs(argv, spec, 'repack');
  if (options.help) return help('repack');
  if (positional.length !== 1) throw new UsageError('repack takes exactly one PTE', 'repack');
  if (!options.output) throw new UsageError('repack needs -o OUT', 'repack');
  if (options.externalize === '') throw new UsageError('--externalize= needs a tag', 'repack');
  const config = {
    extractDelegateSegments: Boolean(options['extract-delegate-segments']),
    segmentAlignment: positiveInt(options, 'segment-alignment', 'repack'),
    constantTensorAlignment: positiveInt(options, 'constant-tensor-alignment', 'repack'),
    delegateAlignment: positiveInt(options, 'delegate-alignment', 'repack'),
    dataSegmentAlignment: positiveInt(options, 'data-segment-alignment', 'repack'),
  };
  for (const k of Object.keys(config)) if (config[k] === undefined) delete config[k];
  const minBytes = positiveInt(options, 'externalize-min-bytes', 'repack', { allowZero: true });
  if (options.externalize || options['externalize-pattern'] || minBytes !== undefined) {
    config.externalize = {
      tag: typeof options.externalize === 'string' ? options.externalize : 'model',
      patterns: options['externalize-pattern'] ?? [],
      minBytes: minBytes ?? 0,
    };
  }
  if (options['merge-tag'] !== undefined) config.mergeTag = options['merge-tag'];
  // Inputs stay on disk: only their heads are read; segment bytes are
  // streamed from them into the outputs.
  const et = await init();
  const [pte, ...merged] = await openInputs(et, [positional[0], ...(options.merge ?? [])], { headers: options.header, env: process.env });
  config.merge = merged;
  const remote = [pte, ...merged].some((s) => s.bytesFetched !== undefined);
  config.output = 'artifact';
  const result = await et.withFetchedRanges(() => et.repack(pte, config));  // URL inputs: what dedup compares
  const out = options.output;
  const written = [];
  // Write the .ptd files first, then the .pte: a .pte never appears without its data.
  for (const [tag, bytes] of Object.entries(result.ptd)) {
    if (tag.includes('/') || tag.includes('\\') || tag === '.' || tag === '..') {
      throw Object.assign(new Error(`data tag '${tag}' is not usable as a file name`), { code: 'INVALID_ARGUMENT' });
    }
    const path = join(dirname(out), `${tag}.ptd`);
    if (resolve(path) === resolve(out)) {
      throw Object.assign(new Error(`${path} would overwrite the output .pte`), { code: 'INVALID_ARGUMENT' });
    }
    await writeOutput(path, bytes, remote ? progressPrinter(path) : undefined);
    written.push({ path, bytes: bytes.size, tag });
  }
  await writeOutput(out, result.pte, remote ? progressPrinter(out) : undefined);
  reportFetched([pte, ...merged]);
  written.unshift({ path: out, bytes: result.pte.size });
  if (options.json) {
    process.stdout.write(`${stringify({ files: written, moved: result.moved, mergedEntries: result.mergedEntries })}\n`);
  } else {
    for (const w of written) process.stdout.write(`wrote ${printable(w.path)} (${fmtBytes(w.bytes)})\n`);
    if (result.moved?.length) {
      const total = result.moved.reduce((a, m) => a + Number(m.bytes), 0);
      process.stdout.write(`externalized ${result.moved.length} tensor(s), ${fmtBytes(total)}\n`);
    }
    if (result.mergedEntries) process.stdout.write(`merged ${result.mergedEntries} named data entr${result.mergedEntries === 1 ? 'y' : 'ies'}\n`);
  }
  return 0;
}

function help(command) {
  process.stdout.write(HELP[command] ?? HELP.main);
  return 0;
}

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === undefined) {
    process.stderr.write(HELP.main);
    return 2;
  }
  if (command === '--help' || command === '-h' || command === 'help') return help(rest[0]);
  if (command === '--version' || command === '-v') {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    process.stdout.write(`${pkg.version}\n`);
    return 0;
  }
  const commands = { inspect: cmdInspect, validate: cmdValidate, repack: cmdRepack };
  if (!commands[command]) throw new UsageError(`unknown command '${command}'`);
  return commands[command](rest);
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (e) {
  if (e instanceof UsageError) {
    fail('USAGE', `${e.message}\nRun 'executorch-pack ${e.command ? `${e.command} ` : ''}--help' for usage.`);
  } else {
    fail(e.code ?? 'INTERNAL', e.message);
  }
  process.exitCode = e instanceof UsageError || IO_CODES.includes(e.code) || !e.code ? 2 : 1;
}
