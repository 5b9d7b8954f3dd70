// `executorch-pack delegate PTE [PTD...] [--method M] [--index N] [--json]`:
// one delegate's processed blob decoded by its payload kind (decodeDelegate:
// XNNPACK, Vulkan, MPS, MLX, native, Core ML, QNN, Ethos-U; others opaque),
// with the named-data keys it needs and which given file holds each.
import { UsageError, nonNegativeInt, parseArgs } from '../args.mjs';
import { openInputs, reportFetched, shownName } from '../inputs.mjs';
import { fmtBytes, printable, stringify, table } from '../format.mjs';

export const usage = `Usage: executorch-pack delegate PTE [PTD...] [--method NAME] [--index N] [--json]

Decodes the processed blob of one delegate (what its backend reads at
init()): the wrapper header, then for XNNPACK, Vulkan, MPS, MLX and native
blobs the graph (nodes, values, constants) as flatc prints it, for Core ML
its file tree, for QNN its context header, for Ethos-U its blocks. A blob of no known kind is reported as opaque. Prints the
operator histogram and the named-data keys the blob refers to, each with
the file that holds it: the .pte's named data or one of the PTD files.
Delegates are numbered as extract numbers them.

Options:
  --index N           the delegate (default 0), over all methods in order
  --method NAME       count N within this method
  --json              print everything decoded as JSON
  --header 'Name: value'  HTTP header for a URL input (repeatable)
  --timeout SECONDS       idle timeout of each request to a URL (default 30)

Exit status: 0 decoded (also when opaque); 1 the file cannot be read, has
no such delegate, or the blob is malformed; 2 usage or I/O problems.
`;

const SPEC = { index: 'value', method: 'value', json: 'flag', help: 'flag', header: 'list', timeout: 'value' };

// Per flatbuffer kind: its nodes, their operator names, its values, and the
// named keys its constants use (non-empty keys only).
const list = (v) => (Array.isArray(v) ? v : []);
const KINDS = {
  xnnpack: (g) => ({ ops: list(g.xnodes).map((n) => n.xnode_union_type), values: list(g.xvalues).length,
    keys: list(g.constant_data).map((c) => c.named_key) }),
  vulkan: (g) => ({ ops: list(g.chain).map((n) => n.name), values: list(g.values).length,
    keys: list(g.constants).map((c) => c.named_key) }),
  mps: (g) => ({ ops: list(g.mps_nodes).map((n) => n.mpsnode_union_type), values: list(g.mps_values).length, keys: [] }),
  // A constant is a tensor slot below num_constant_tensors, keyed by its slot name.
  mlx: (g) => ({ ops: list(g.instruction_chains).flatMap((c) => list(c.instructions).map((i) => i.op_type)),
    values: list(g.tensor_meta).length,
    keys: list(g.named_slots).filter((s) => s.slot?.slot_type === 'TensorSlot' && s.slot.idx < (g.num_constant_tensors ?? 0)).map((s) => s.name) }),
  native: (g) => {
    const methods = list(g.methods);
    const nodes = methods.flatMap((m) => list(m.graph?.nodes)).filter((n) => n.op_kind === 'CALL_FUNCTION');
    return { ops: nodes.map((n) => n.target), values: methods.reduce((s, m) => s + list(m.graph?.tensor_values).length, 0),
      keys: methods.flatMap((m) => list(m.constants).map((c) => c.data_key)) };
  },
};

function summaryOf(decoded) {
  const of = KINDS[decoded.kind];
  const s = of && decoded.graph ? of(decoded.graph) : { ops: [], values: null, keys: [] };
  if (decoded.kind === 'coreml' && decoded.content?.reference) s.keys = [decoded.content.reference.key];
  if (decoded.kind === 'ethosu') s.keys = list(decoded.content?.blocks).map((b) => b.named_data_key);
  const histogram = {};
  for (const op of s.ops) histogram[op ?? '?'] = (histogram[op ?? '?'] ?? 0) + 1;
  const keys = [...new Set(s.keys.filter((k) => typeof k === 'string' && k !== ''))];
  return { nodes: s.ops.length, values: s.values, operators: histogram, keys };
}

// Where each key lives: 'pte', a PTD's name, or null (held by no given file).
function locate(et, pte, ptds, names, keys) {
  const holders = [{ name: 'pte', keys: new Set(et.inspect(pte).namedData.key) }];
  ptds.forEach((ptd, i) => holders.push({ name: names[i], keys: new Set(et.inspect(ptd, { kind: 'ptd' }).namedData.key) }));
  return keys.map((key) => ({ key, in: holders.find((h) => h.keys.has(key))?.name ?? null }));
}

export async function run(argv, { init, help }) {
  const { options, positional } = parseArgs(argv, SPEC, 'delegate');
  if (options.help) return help('delegate');
  if (positional.length < 1) throw new UsageError('delegate takes a PTE (and optionally its PTD files)', 'delegate');
  const index = nonNegativeInt(options, 'index', 'delegate') ?? 0;
  const et = await init();
  let inputs = [];
  try {
    inputs = await openInputs(et, positional, { headers: options.header, env: process.env, timeout: options.timeout });
    const [pte, ...ptds] = inputs;
    const request = { delegate: index };
    if (options.method !== undefined) request.method = options.method;
    const blob = et.extract(pte, request);
    const decoded = et.decodeDelegate(blob.bytes, { backend: blob.id });
    const summary = summaryOf(decoded);
    const namedKeys = locate(et, pte, ptds, positional.slice(1).map(shownName), summary.keys);
    reportFetched(inputs);
    const where = { method: blob.method, index: blob.index, id: blob.id, location: blob.location, offset: blob.offset, size: blob.size };
    if (options.json) {
      process.stdout.write(`${stringify({ schema: 1, command: 'delegate', ok: true, ...where, ...decoded,
        summary: { nodes: summary.nodes, values: summary.values, operators: summary.operators }, namedKeys })}\n`);
      return 0;
    }
    const lines = [`delegate ${blob.index} of method ${printable(blob.method)}: ${blob.id === null ? '(no id)' : printable(blob.id)}, ` +
      `${fmtBytes(blob.size)} ${blob.location}${blob.offset === null ? '' : ` at offset ${blob.offset}`}`, `kind: ${decoded.kind}`];
    lines.push(`header: ${Object.entries(decoded.header).map(([k, v]) => `${k}=${printable(String(v))}`).join(', ')}`);
    if (decoded.graph) lines.push(`graph: ${summary.nodes} nodes, ${summary.values} values`);
    const ops = Object.entries(summary.operators).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    if (ops.length) lines.push('', table(['operator', 'count'], ops.map(([op, n]) => [printable(op), String(n)])));
    if (decoded.content?.files) lines.push('', table(['file', 'bytes'], decoded.content.files.map((f) => [printable(f.path), String(f.size)])));
    if (decoded.content?.blocks) lines.push('', table(['block', 'bytes', 'external'], decoded.content.blocks.map((b) => [printable(b.name), String(b.size), b.external ? 'yes' : ''])));
    if (namedKeys.length) {
      lines.push('', table(['named key', 'held by'], namedKeys.map((k) => [printable(k.key), k.in === null ? 'MISSING (no given file)' : printable(k.in)])));
    }
    process.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  } finally {
    for (const input of inputs) input?.close?.();
  }
}
