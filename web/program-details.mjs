// The Program view's properties panel: a node's facts and the values it
// names (memory-plan range, where a constant's bytes are, live range).
// Delegate nodes get what an expander registered for their kind adds
// (registerExpander: the hook the delegates view plugs into).
import { el, fmt, longTable } from './common.mjs';
import { KIND_NAMES } from './program-graph.mjs';

const expanders = new Map();  // node kind -> (node, method) => Element | null
export function registerExpander(kind, fn) { expanders.set(kind, fn); }

const tensorText = (v) => (v.type === 'Tensor' ? `${v.dtype ?? '?'}[${(v.shape ?? []).join(', ')}]` : v.type);
const memoryText = (m) => (m ? `buffer ${m.id}, bytes ${m.offset}–${m.size == null ? '?' : Number(m.offset) + Number(m.size)} (${m.size == null ? '?' : fmt(m.size)})` : '—');
function dataText(d) {
  if (!d) return '—';
  if (d.kind === 'external') return `.ptd key ${d.key ?? '?'} in ${d.file ?? '(no .ptd given holds it)'}`;
  return `${d.kind}: ${d.where ?? '?'}${d.offset == null ? '' : `, file bytes ${d.offset}–${Number(d.offset) + Number(d.size ?? 0)}`}${d.size == null ? '' : ` (${fmt(d.size)})`}`;
}

// A node's facts and its values: for an instruction, the values it names.
export function showDetails(details, node, method) {
  const facts = [['kind', KIND_NAMES[node.kind] ?? node.kind], ['label', node.label]];
  if (node.instruction) facts.push(['instruction', `chain ${node.instruction.chain}, index ${node.instruction.index} (#${node.order})`]);
  if (node.kind === 'delegate') {
    facts.push(['blob', node.blobSize == null ? '?' : fmt(node.blobSize)]);
    facts.push(['compile specs', node.compileSpecs.map((c) => `${c.key ?? '(no key)'}=${c.value ?? `<${c.bytes} bytes>`}`).join(', ') || '—']);
  }
  if (node.kind === 'jumpFalse') facts.push(['target', `instruction ${node.target} unless v${node.cond}`]);
  if (node.kind === 'external') facts.push(['.ptd', `${node.key ?? '?'} in ${node.file ?? '(not in the files given)'}`]);
  const indices = node.args ?? [node.value, node.cond, node.from, node.to].filter((v) => typeof v === 'number');
  const rows = [...new Set(indices)].map((i) => method.values[i]).filter(Boolean);
  const dl = el('dl', { class: 'kv' });
  for (const [k, v] of facts) dl.append(el('dt', { text: k }), el('dd', { text: String(v) }));
  const table = longTable(['value', 'type', 'name', 'memory plan', 'bytes in file', 'live'], rows, (v) => [`v${v.index}`, tensorText(v), v.name ?? '—',
    memoryText(v.memory), dataText(v.data), v.live ? `#${v.live.first}–#${v.live.last}` : '—'], 50);
  const extra = expanders.get(node.kind)?.(node, method) ?? null;
  details.replaceChildren(el('h3', { text: node.label, style: 'overflow-wrap:anywhere' }), dl,
    rows.length ? table : el('p', { class: 'hint', text: 'No values.' }));
  if (extra) details.append(extra);
}
