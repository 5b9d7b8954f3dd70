// `executorch-pack inspect FILE`: inspect()'s summary as tables, or as JSON.
import { ROW_LIMIT, fmtBytes, indent, moreLine, printable, table, tableOf } from '../format.mjs';
import { openInputs, reportFetched, shownName } from '../inputs.mjs';
import { UsageError, parseArgs } from '../args.mjs';
import { stringifyWithColumns } from '../json-columns.mjs';
import { compileSpecsLine, formatLargestConstants, formatRequirements, memoryLine } from '../requirements.mjs';
import { formatBundled } from '../bundled.mjs';

export const usage = `Usage: executorch-pack inspect FILE [PTD...] [--json]

Prints a summary of a .pte (program), .ptd (data) or .bpte (bundled program:
its test cases, then its program) file: its model card
(methods that return only constants, such as get_max_seq_len, with their
values), what it needs to run (ExecuTorch release, backends, kernels, .ptd
keys), methods with their inputs, outputs, operators, delegates (with
compile specs) and memory plan, constants, named data, bytes by category and
the segment map (every byte range of the file). Tables longer than 40 rows
show the first 40 and say how many more there are.

Each method's method allocator figure is the exact minimum pool load_method
needs (ExecuTorch at cff6f4dd; backends' own init() not counted), and the
model's total is one pool loading every method. Give the .ptd files the
.pte is loaded with after it (PTD...): the figures then count what
load_method adds for them.

Options:
  --json     print inspect()'s full JSON summary (every row) instead of tables
  --header 'Name: value'  HTTP header for a URL input (repeatable)
  --timeout SECONDS       idle timeout of each request to a URL (default 30)
`;

const shape = (s) => (s ? `[${s.join(', ')}]` : '-');
const ioLine = (v) => printable(`${v.type}${v.dtype ? ` ${v.dtype}` : ''}${v.shape ? ` ${shape(v.shape)}` : ''} (value ${v.index})`);

// A model-card value as written in the file: int64 exact, -0 kept, strings
// quoted (a string "128" is not the number 128), lists in brackets, a NaN
// other than the canonical one with its bits ({ nanBits }).
function cardValue(v) {
  if (Array.isArray(v)) return `[${v.map(cardValue).join(', ')}]`;
  if (typeof v === 'string') return JSON.stringify(v);
  if (v !== null && typeof v === 'object' && typeof v.nanBits === 'string') return `NaN (0x${v.nanBits})`;
  if (Object.is(v, -0)) return '-0';
  return v === null ? 'None' : String(v);
}

// The model card (constant methods and their values): shown first.
function formatMetadata(metadata) {
  const entries = Object.entries(metadata ?? {});
  if (!entries.length) return [];
  return [`Metadata (${entries.length})`, indent(tableOf(['method', 'value'], entries, ([name, v]) => [name, cardValue(v)]), 2), ''];
}

function formatInspect(path, s) {
  if (s.format === 'bpte') return formatBundled(path, s, formatInspect);
  const out = [];
  out.push(`${printable(path)}: ${s.format === 'pte' ? 'ExecuTorch program (.pte)' : 'ExecuTorch data file (.ptd)'}, ${fmtBytes(s.fileSize)}, identifier ${printable(s.identifier)}`);
  if (s.format === 'pte') out.push(...formatMetadata(s.metadata));
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
          out.push(...payloadLines(d));
        }
      }
      const memory = memoryLine(m);
      if (memory) out.push(`    ${memory}`);
      const pool = m.memory?.methodAllocator;
      if (pool) {
        // Exact bytes (a pool is sized to the byte), not rounded units.
        const arch = (name) => `${name} ${pool[name].withTempAllocator} bytes (${pool[name].withoutTempAllocator} without a temp allocator)`;
        out.push(`    method allocator: ${arch('64-bit')}, ${arch('arm32')}; backends' init() not included (${printable(pool.runtime)})`);
      }
      out.push('');
    }
    const total = s.methodAllocator;
    if (total && s.methods.length) {
      const all = total.allMethods;
      const arch = (name) => `${name} ${all[name].withTempAllocator} bytes (${all[name].withoutTempAllocator} without a temp allocator)`;
      const ptds = total.dataFiles ? ` with ${total.dataFiles} .ptd file(s)${total.mergedDataMap ? ' (a merged data map per method)' : ''}` : '';
      out.push(`Method allocator for every method in one pool${ptds}: ${arch('64-bit')}, ${arch('arm32')} (${printable(total.runtime)})`);
      for (const w of total.warnings ?? []) out.push(`warning: ${printable(w)}`);
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
  const named = s.namedData;  // columns: row i is key[i], segment[i], ...
  if (named.count) {
    out.push('', `Named data (${named.count})`);
    const layout = (i) => (named.layouts && named.layout[i] !== null ? named.layouts[named.layout[i]] : null);
    const row = (key, i) => (s.format === 'ptd' ? [key, named.segment[i], named.size[i], layout(i)?.dtype ?? null, shape(layout(i)?.shape)]
      : [key, named.segment[i], named.size[i]]);
    out.push(indent(tableOf(s.format === 'ptd' ? ['key', 'segment', 'bytes', 'dtype', 'shape'] : ['key', 'segment', 'bytes'], named.key, row), 2));
  }
  out.push('', 'Size breakdown');
  const total = Number(s.fileSize) || 1;
  out.push(indent(table(['category', 'bytes', 'share'], Object.entries(s.bytesByCategory)
    .map(([k, v]) => [k, v, `${((Number(v) / total) * 100).toFixed(1)}%`])), 2));
  if (s.weights) {
    const w = s.weights;
    out.push('', `Weights: ${fmtBytes(w.total)} (constants ${fmtBytes(w.constants)}, named data ${fmtBytes(w.namedData)}, inside delegate blobs ${fmtBytes(w.delegateConstants)}; delegate graphs ${fmtBytes(w.delegateGraphs)})`);
  }
  out.push('', 'Segment map');
  out.push(indent(tableOf(['start', 'end', 'size', 'kind', 'segment', 'owner'], s.segmentMap,
    (r) => [r.start, r.end, r.size, r.kind + (r.clipped ? ' (clipped)' : ''), r.segment, ownersLine(r)]), 2));
  return out.join('\n');
}

// What a delegate's blob holds (inspect's payload): kind, counts,
// histograms, constant bytes, and each named key with where it lives.
function payloadLines(d) {
  const p = d.payload;
  if (!p) return [];
  if (p.kind === 'invalid') return [`    delegate ${d.index} payload: invalid (${printable(p.error)})`];
  const counts = (h) => Object.entries(h ?? {}).map(([k, n]) => `${k} ${n}`).join(', ');
  const parts = [p.kind];
  if (p.nodes !== null && p.nodes !== undefined) parts.push(`${p.nodes} nodes, ${p.values} values`);
  parts.push(`${fmtBytes(p.constantBytes)} of constants in the blob`);
  const out = [`    delegate ${d.index} payload: ${printable(parts.join(', '))}`];
  for (const [label, h] of [['operators', p.operators], ['dtypes', p.dtypes], ['quantization', p.quantization]]) {
    if (Object.keys(h ?? {}).length) out.push(`      ${label}: ${printable(counts(h))}`);
  }
  const keys = p.namedKeys ?? [];
  for (const k of keys.slice(0, ROW_LIMIT)) {
    const where = k.in === null || k.in === undefined ? 'MISSING from the given files' : k.in === 'pte' ? 'in the .pte' : `in ${k.in}`;
    const bytes = k.storedBytes ?? k.bytes;
    out.push(`      key ${printable(JSON.stringify(k.key))}${bytes !== null && bytes !== undefined ? ` (${fmtBytes(bytes)})` : ''}: ${printable(where)}`);
  }
  if (keys.length > ROW_LIMIT) out.push(`      ${moreLine(keys.length - ROW_LIMIT, 'keys')}`);
  return out;
}

// A range's owners: the first few names, then how many more (owners
// names only a segment's first named-data entries; ownerCount counts all).
function ownersLine(r, limit = 3) {
  const total = Number(r.ownerCount ?? r.owners.length);
  const shown = r.owners.slice(0, limit);
  const more = total - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more.toLocaleString('en-US')} more` : shown.join(', ');
}

export async function run(argv, { init, help }) {
  const { options, positional } = parseArgs(argv, { json: 'flag', help: 'flag', header: 'list', timeout: 'value' }, 'inspect');
  if (options.help) return help('inspect');
  if (positional.length < 1) throw new UsageError('inspect takes a FILE (and the .ptd files a .pte is loaded with)', 'inspect');
  // Files are opened, not loaded: only their heads are read.
  const et = await init();
  const inputs = await openInputs(et, positional, { headers: options.header, env: process.env, timeout: options.timeout });
  const [input, ...ptds] = inputs;
  const summary = ptds.length ? et.inspect(input, { dataFiles: ptds }) : et.inspect(input);
  reportFetched(inputs);
  // namedData's columns one line each (stringifyWithColumns).
  process.stdout.write(options.json ? `${stringifyWithColumns({ schema: 1, command: 'inspect', ok: true, ...summary }, ['namedData'])}\n` : `${formatInspect(shownName(positional[0]), summary)}\n`);
  return 0;
}
