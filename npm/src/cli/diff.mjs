// `executorch-pack diff A B`: two .pte (with their .ptd files) or two .ptd
// compared by meaning (see npm/src/diff.mjs). Exit 0 equivalent, 1 not
// (or a malformed input), 2 usage or I/O.
import { fmtBytes, printable, stringify } from './format.mjs';
import { openInputs, reportFetched, shownName } from './inputs.mjs';

export const DIFF_HELP = `Usage: executorch-pack diff A B [--data-a PTD...] [--data-b PTD...] [--json]

Compares two .pte files (with the .ptd files each uses) or two .ptd files by
meaning: methods, inputs/outputs, operators, instruction counts, delegates
(compile specs, blob SHA-256), every constant and external tensor (dtype,
shape, size, SHA-256 of its bytes), named data by key. Layout differences
(alignment, header fields, segments, file size) are listed separately and do
not make files different. Tensor bytes are hashed by streaming. Every file
may be an http(s):// URL (read by range requests).

Exit status: 0 equivalent, 1 different or an input that is malformed,
2 usage problem or an input that cannot be read.

Options:
  --data-a PTD   a .ptd file of A (repeatable)
  --data-b PTD   a .ptd file of B (repeatable)
  --header 'Name: value'  HTTP header for URL inputs (repeatable)
  --timeout SECONDS       idle timeout of each request to a URL (default 30)
  --json         print the whole comparison as JSON
`;

const short = (h) => (typeof h === 'string' ? h.slice(0, 12) : '?');
const shapeText = (s) => (Array.isArray(s) ? `[${s.join(', ')}]` : '-');
// A value absent on one side (a .pte without an extended header, a field
// the other file lacks) is shown as "none", never as "undefined".
const value = (v) => {
  if (v === null || v === undefined) return 'none';
  return typeof v === 'object' ? stringify(v).replace(/\s+/g, ' ') : String(v);
};

function section(out, title, changes, describe) {
  if (!changes.added.length && !changes.removed.length && !changes.changed.length) return;
  out.push('', title);
  for (const r of changes.added) out.push(`  + ${printable(r.name)}${describe ? ` ${describe(r)}` : ''}`);
  for (const r of changes.removed) out.push(`  - ${printable(r.name)}${describe ? ` ${describe(r)}` : ''}`);
  for (const c of changes.changed) {
    out.push(`  ~ ${printable(c.name)}: ${c.fields.map((f) => printable(`${f} ${value(c.a[f] ?? null)} -> ${value(c.b[f] ?? null)}`)).join('; ')}`);
  }
}

// `unread`: the sides whose external tensor bytes were not compared for want
// of their .ptd files ('a', 'b'), each named with the option that gives them.
export function formatDiff(a, b, r, unread = []) {
  const s = r.summary;
  const out = [];
  const verdict = r.identical ? 'identical' : r.equivalent ? 'equivalent (layout differs)' : 'different';
  out.push(`${printable(a)} vs ${printable(b)}: ${verdict}`);
  const counts = (name, c) => (c ? `${name} +${c.added} -${c.removed} ~${c.changed}` : null);
  out.push([counts('methods', s.methods), counts('tensors', s.tensors), counts('named data', s.namedData),
    counts('external data', s.externalData), s.programFields !== undefined ? `program fields ${s.programFields}` : null,
    `bytes changed ${fmtBytes(s.bytesChanged)}`, `layout changes ${s.layoutChanges}`].filter(Boolean).join(', '));
  if (r.kind === 'pte' && !s.externalDataCompared && unread.length) {
    out.push(`external tensor bytes not compared (give ${unread.map((side) => `--data-${side}`).join(' and ')})`);
  }
  if (r.methods) {
    const m = r.methods;
    if (m.added.length || m.removed.length || m.changed.length) out.push('', 'Methods');
    for (const n of m.added) out.push(`  + ${printable(n)}`);
    for (const n of m.removed) out.push(`  - ${printable(n)}`);
    for (const c of m.changed) {
      out.push(`  ~ ${printable(c.name)}`);
      for (const f of c.changes) out.push(printable(`      ${f.field}: ${value(f.a)} -> ${value(f.b)}`));
    }
  }
  const tensor = (t) => `${t.kind ?? ''} ${t.dtype ?? ''}${shapeText(t.shape)} ${t.size ?? '?'} B sha256 ${short(t.sha256)}`.trim();
  const blob = (t) => `${t.size} B sha256 ${short(t.sha256)}`;
  if (r.tensors) section(out, 'Tensors', r.tensors, tensor);
  section(out, r.kind === 'pte' ? 'Named data (.pte)' : 'Named data', r.namedData, blob);
  if (r.externalData) section(out, 'Named data (.ptd files)', r.externalData, blob);
  if (r.programFields?.length) {
    out.push('', 'Program fields');
    for (const f of r.programFields.slice(0, 50)) out.push(printable(`  ${f.path}: ${value(f.a)} -> ${value(f.b)}`));
    if (r.programFields.length > 50) out.push(`  ... ${r.programFields.length - 50} more (--json lists them)`);
  }
  if (r.layout.length) {
    out.push('', 'Layout');
    for (const f of r.layout) out.push(printable(`  ${f.field}: ${value(f.a)} -> ${value(f.b)}`));
  }
  return out.join('\n');
}

export async function cmdDiff(argv, { init, parseArgs, UsageError, help }) {
  const spec = { json: 'flag', help: 'flag', 'data-a': 'list', 'data-b': 'list', header: 'list', timeout: 'value' };
  const { options, positional } = parseArgs(argv, spec, 'diff');
  if (options.help) return help('diff');
  if (positional.length !== 2) throw new UsageError('diff takes exactly two files, A and B', 'diff');
  const [a, b] = positional;
  const et = await init();
  const dataA = options['data-a'] ?? [];
  const dataB = options['data-b'] ?? [];
  // Files are opened, URLs read by range requests: heads now, tensor bytes
  // while they are hashed.
  const inputs = await openInputs(et, [a, b, ...dataA, ...dataB], { headers: options.header, env: process.env, timeout: options.timeout });
  const named = (list, from) => Object.fromEntries(list.map((p, i) => [p, inputs[from + i]]));
  // An input that cannot be parsed is exit status 1, as "different" (the
  // contract: the inputs are invalid or differ); 2 is usage or I/O. The
  // dispatcher prints the error, naming the file.
  const result = await et.diff(inputs[0], inputs[1], { dataA: named(dataA, 2), dataB: named(dataB, 2 + dataA.length) });
  reportFetched(inputs);
  if (options.json) {
    process.stdout.write(`${stringify({ schema: 1, command: 'diff', ok: result.equivalent, ...result })}\n`);
  } else {
    // A side lacks data only if its program has external tensors and no
    // --data-X was given: a program without them needs none.
    const unread = result.kind === 'pte' && !result.summary.externalDataCompared
      ? [['a', inputs[0], dataA], ['b', inputs[1], dataB]]
        .filter(([, input, data]) => data.length === 0 && et.inspect(input, { kind: 'pte' }).externalTensors.length > 0)
        .map(([side]) => side)
      : [];
    process.stdout.write(`${formatDiff(shownName(a), shownName(b), result, unread)}\n`);
  }
  return result.equivalent ? 0 : 1;
}
