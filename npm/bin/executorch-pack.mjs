#!/usr/bin/env node
// executorch-pack CLI: inspect, validate and repack ExecuTorch .pte/.ptd files.
// Exit codes: 0 success (validate: no errors), 1 validate found errors or an
// operation failed on the file's contents (coded error), 2 usage or I/O
// problems, 128+N stopped by signal N. The commands' parts live in src/cli/.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import init from '../index.node.mjs';
import { ROW_LIMIT, fmtBytes, indent, moreLine, namesLine, printable, stringify, table, tableOf } from '../src/cli/format.mjs';
import { openInputs, reportFetched, shownName } from '../src/cli/inputs.mjs';
import { UsageError, closest, parseArgs } from '../src/cli/args.mjs';
import { exitStatus, formatFinding, reportError } from '../src/cli/report.mjs';
import { REPACK_HELP, cmdRepack } from '../src/cli/repack.mjs';
import { quietOnClosedPipes } from '../src/cli/files.mjs';
import { cmdDiff, DIFF_HELP } from '../src/cli/diff.mjs';
import { cmdExportWeights, cmdWeights, WEIGHTS_HELP } from '../src/cli/weights.mjs';
import {
  compileSpecsLine, formatLargestConstants, formatRequirements, memoryLine, validateTargetOptions,
} from '../src/cli/requirements.mjs';

const HELP = {
  main: `executorch-pack — inspect, validate and repack ExecuTorch .pte/.ptd files

Usage:
  executorch-pack inspect FILE [--json]
  executorch-pack validate PTE [PTD...] [--json] [--runtime X.Y] [--backends A,B]
  executorch-pack repack PTE [PTD...] -o OUT [options]
  executorch-pack --version
  executorch-pack <command> --help

Every FILE, PTE or PTD may be an http(s):// URL: only the bytes needed are
fetched, by range requests. --header 'Name: value' (repeatable) is sent to
that URL's host; HF_TOKEN (environment) only to Hugging Face Hub hosts.
--timeout SECONDS (default 30) ends a request idle that long, and one that
runs past it plus its bytes at 64 KiB/s. Text output shows a URL without
its query (a signed URL's credentials).

Commands:
  inspect    summary of a .pte or .ptd: methods, operators, delegates,
             constants, size breakdown and a map of every byte range
  validate   check a .pte (with its .ptd files) or a .ptd; exit 0 when clean,
             1 when errors were found, 2 on usage or I/O problems
  repack     rewrite a model (.pte and its .ptd files) with a new layout; move
             constants out into a .ptd or merge .ptd files in; never replaces
             its inputs or (without --force) other existing files
  diff       compare two .pte (with their .ptd files) or two .ptd by meaning;
             exit 0 equivalent, 1 different
  weights    write a program's .ptd from safetensors checkpoints
  export-weights  write a program's named tensors to a .safetensors file

Exit status: 0 success; 1 the files' contents are invalid (validate found
errors, repack refused); 2 usage or I/O problems (a missing file, a folder
given as a file, an output that may not be replaced); 128+N stopped by
signal N.

--json output of every command is one JSON document with "schema": 1,
described by schema/cli-output.schema.json in the package.
Progress of long writes is shown on stderr when it is a terminal
(EXECUTORCH_PACK_PROGRESS=always|never overrides).
`,
  inspect: `Usage: executorch-pack inspect FILE [--json]

Prints a summary of a .pte (program) or .ptd (data) file: what it needs to
run (ExecuTorch release, backends, kernels, .ptd keys), methods with their
inputs, outputs, operators, delegates (with compile specs) and memory plan,
constants, named data, bytes by category and the segment map (every byte
range of the file). Tables longer than 40 rows show the first 40 and say
how many more there are.

Options:
  --json     print inspect()'s full JSON summary (every row) instead of tables
  --header 'Name: value'  HTTP header for a URL input (repeatable)
  --timeout SECONDS       idle timeout of each request to a URL (default 30)
`,
  validate: `Usage: executorch-pack validate PTE [PTD...] [--json] [--runtime X.Y] [--backends A,B]

Checks a .pte and the .ptd files it uses (external tensors are resolved
against them), or a .ptd on its own, as the ExecuTorch runtime would load
them. Prints every error and warning with its code and location.

Exit status: 0 no errors (warnings allowed), 1 errors found, 2 usage or I/O
problem.

Options:
  --json                        print the report as JSON ({ok, errors, warnings})
  --runtime X.Y                 target ExecuTorch release: every feature newer than it is an error
  --backends A,B                delegate backends the target links: every other one is an error
  --deprecated-constant-buffer  target builds with the deprecated constant_buffer path (Buck's
                                default): a missing constant segment placeholder is a warning
  --header 'Name: value'        HTTP header for URL inputs (repeatable)
  --timeout SECONDS             idle timeout of each request to a URL (default 30)
`,
  repack: REPACK_HELP,
};

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
  if (s.oldLayoutFields) out.push(`old layout: the FlatTensor table of ExecuTorch 0.6 (${printable(s.oldLayoutFields)}); runtimes since 0.7 cannot read it`);
  if (s.requirements) out.push('', formatRequirements(s.requirements));
  if (s.format === 'pte') {
    out.push('', `Methods (${s.methods.length})`);
    for (const m of s.methods) {
      out.push(`  ${m.name === null || m.name === undefined ? '(unnamed)' : printable(m.name)}: ${m.valueCount} values, ${m.chainCount} chain(s), ${m.instructionCount} instruction(s)`);
      for (const v of m.inputs.slice(0, ROW_LIMIT)) out.push(`    in  ${ioLine(v)}`);
      if (m.inputs.length > ROW_LIMIT) out.push(`    ${moreLine(m.inputs.length - ROW_LIMIT, 'inputs')}`);
      for (const v of m.outputs.slice(0, ROW_LIMIT)) out.push(`    out ${ioLine(v)}`);
      if (m.outputs.length > ROW_LIMIT) out.push(`    ${moreLine(m.outputs.length - ROW_LIMIT, 'outputs')}`);
      if (m.operators.length) {
        out.push('', indent(tableOf(['operator', 'overload', 'calls'], m.operators, (o) => [o.name, o.overload ?? '', o.count]), 4));
      }
      if (m.delegates.length) {
        out.push('', indent(table(['delegate', 'id', 'location', 'size', 'offset'],
          m.delegates.map((d) => [d.index, d.id, d.location, d.size, d.offset])), 4));
        for (const d of m.delegates) {
          const line = compileSpecsLine(d);
          if (line) out.push(`    ${line}`);
        }
      }
      const memory = memoryLine(m);
      if (memory) out.push(`    ${memory}`);
      out.push('');
    }
    const c = s.constants;
    out.push(`Constants: ${c.count} tensor(s) in ${c.storage} storage${c.segment !== null ? ` (segment ${c.segment})` : ''}, ${fmtBytes(c.totalBytes)}`);
    const largest = formatLargestConstants(c.largest);
    if (largest) out.push(largest);
    if (s.mutableData) out.push(`Mutable data: ${s.mutableData.count} buffer(s), ${fmtBytes(s.mutableData.totalBytes)}`);
    if (s.externalTensors.length) {
      out.push('', `External tensors (${s.externalTensors.length})`,
        indent(tableOf(['name', 'dtype', 'shape', 'bytes', 'mutable'], s.externalTensors, (t) => [t.name, t.dtype, shape(t.shape), t.size, t.mutable ? 'yes' : 'no']), 2));
    }
  }
  if (s.namedData.length) {
    out.push('', `Named data (${s.namedData.length})`);
    const row = (n) => (s.format === 'ptd' ? [n.key, n.segment, n.size, n.dtype, shape(n.shape)] : [n.key, n.segment, n.size]);
    out.push(indent(tableOf(s.format === 'ptd' ? ['key', 'segment', 'bytes', 'dtype', 'shape'] : ['key', 'segment', 'bytes'], s.namedData, row), 2));
  }
  out.push('', 'Size breakdown');
  const total = Number(s.fileSize) || 1;
  out.push(indent(table(['category', 'bytes', 'share'], Object.entries(s.bytesByCategory)
    .map(([k, v]) => [k, v, `${((Number(v) / total) * 100).toFixed(1)}%`])), 2));
  out.push('', 'Segment map');
  out.push(indent(tableOf(['start', 'end', 'size', 'kind', 'segment', 'owner'], s.segmentMap,
    (r) => [r.start, r.end, r.size, r.kind + (r.clipped ? ' (clipped)' : ''), r.segment, namesLine(r.owners)]), 2));
  return out.join('\n');
}

// --- commands ----------------------------------------------------------------

async function cmdInspect(argv) {
  const { options, positional } = parseArgs(argv, { json: 'flag', help: 'flag', header: 'list', timeout: 'value' }, 'inspect');
  if (options.help) return help('inspect');
  if (positional.length !== 1) throw new UsageError('inspect takes exactly one FILE', 'inspect');
  // Files are opened, not loaded: only their heads are read.
  const et = await init();
  const [input] = await openInputs(et, positional, { headers: options.header, env: process.env, timeout: options.timeout });
  const summary = et.inspect(input);
  reportFetched([input]);
  process.stdout.write(options.json ? `${stringify({ schema: 1, command: 'inspect', ...summary })}\n` : `${formatInspect(shownName(positional[0]), summary)}\n`);
  return 0;
}

async function cmdValidate(argv) {
  const spec = {
    json: 'flag', help: 'flag', header: 'list', timeout: 'value', runtime: 'value', backends: 'value', 'deprecated-constant-buffer': 'flag',
  };
  const { options, positional } = parseArgs(argv, spec, 'validate');
  if (options.help) return help('validate');
  if (positional.length < 1) throw new UsageError('validate needs a PTE (or PTD) file', 'validate');
  if (options.runtime !== undefined && !/^v?\d{1,6}\.\d{1,6}(\.\d{1,6})?$/.test(options.runtime)) {
    throw new UsageError(`--runtime must be a release like 1.0, got '${printable(options.runtime)}'`, 'validate');
  }
  const [main, ...rest] = positional;
  const et = await init();
  const inputs = await openInputs(et, positional, { headers: options.header, env: process.env, timeout: options.timeout });
  const pte = inputs[0];
  const ptds = {};
  rest.forEach((p, i) => {
    const base = basename(p.replace(/[?#].*$/, ''));
    let name = base;
    for (let n = 2; name in ptds; ++n) name = `${base}#${n}`;
    ptds[name] = inputs[i + 1];
  });
  const report = await et.withFetchedRanges(() => et.validate(pte, ptds, validateTargetOptions(options)));  // URL inputs: padding past the prefetch
  reportFetched(inputs);
  if (options.json) {
    process.stdout.write(`${stringify({ schema: 1, command: 'validate', ...report })}\n`);
  } else {
    for (const f of report.errors) process.stdout.write(`${formatFinding(f, 'error')}\n`);
    for (const f of report.warnings) process.stdout.write(`${formatFinding(f, 'warning')}\n`);
    const files = printable([main, ...rest].map(shownName).join(', '));
    process.stdout.write(report.ok
      ? `${files}: OK (${report.warnings.length} warning(s))\n`
      : `${files}: ${report.errors.length} error(s), ${report.warnings.length} warning(s)\n`);
  }
  return report.ok ? 0 : 1;
}

function help(command) {
  const more = { diff: DIFF_HELP, ...WEIGHTS_HELP };
  process.stdout.write(Object.hasOwn(HELP, command ?? '') ? HELP[command] : Object.hasOwn(more, command ?? '') ? more[command] : HELP.main);
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
  const cli = { init, parseArgs, UsageError, help };
  const commands = {
    inspect: cmdInspect, validate: cmdValidate, repack: (argv) => cmdRepack(argv, { init, help }),
    diff: (a) => cmdDiff(a, cli), weights: (a) => cmdWeights(a, cli), 'export-weights': (a) => cmdExportWeights(a, cli),
  };
  if (!Object.hasOwn(commands, command)) {
    const guess = closest(command, Object.keys(commands));
    throw new UsageError(`unknown command '${command}'${guess ? ` (did you mean ${guess}?)` : ''}`);
  }
  return commands[command](rest);
}

quietOnClosedPipes();  // \`validate X | true\`: the status of the work, no EPIPE stack
try {
  process.exitCode = await main(process.argv.slice(2));
} catch (e) {
  reportError(e);
  process.exitCode = exitStatus(e);
}
