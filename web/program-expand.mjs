// Delegates expanded in the Program view (program-view.mjs): a delegate box,
// clicked, is replaced by its payload's nodes and edges (et.graph with
// delegates: 'expand', made once per file in the core's worker, asked for
// when a method with a delegate is shown: program-view.mjs). The view
// keeps drawing windows of at most MAX_NODES boxes (program-graph.mjs), so a
// delegate of 230 nodes is paged like instructions, never drawn at once.
// The properties panel (registerExpander) says why a delegate cannot be
// expanded, and offers to collapse an expanded one.
import { el } from './common.mjs';

// A payload node's id is its DelegateCall's id and ".n<k>".
const PAYLOAD_ID = /^(c\d+\.i\d+)\.n\d+$/;
export const delegateOf = (id) => PAYLOAD_ID.exec(id)?.[1] ?? null;

// The method `base` (collapsed) with the delegates in `expanded` (ids)
// replaced by their nodes from `full` (the same method, every delegate
// expanded): nodes in order, base's edges that touch no expanded delegate,
// and full's edges that touch an expanded delegate's nodes (an end in a
// delegate still collapsed drawn to its box).
export function mergeExpanded(base, full, expanded) {
  if (!expanded.size) return base;
  const payload = new Map();  // delegate id -> its nodes in `full`
  for (const n of full.nodes) {
    const d = delegateOf(n.id);
    if (d && expanded.has(d)) {
      let list = payload.get(d);
      if (!list) payload.set(d, list = []);
      list.push(n);
    }
  }
  const nodes = base.nodes.flatMap((n) => payload.get(n.id) ?? [n]);
  const edges = base.edges.filter((e) => !payload.has(e.from) && !payload.has(e.to));
  const seen = new Set();
  const end = (id) => {
    const d = delegateOf(id);
    return d && !payload.has(d) ? d : id;
  };
  for (const e of full.edges) {
    const df = delegateOf(e.from), dt = delegateOf(e.to);
    if (!payload.has(df) && !payload.has(dt)) continue;
    const from = end(e.from), to = end(e.to);
    const key = `${from}>${to}>${e.value ?? e.payloadValue}`;
    if (from === to || seen.has(key)) continue;
    seen.add(key);
    edges.push(from === e.from && to === e.to ? e : { ...e, from, to });
  }
  return { ...base, nodes, edges };
}

// The panel's part for delegates: why one stays a box, or a way back.
export function delegatePanel(node, { canExpand, expand, collapse, note }) {
  if (node.kind === 'delegateNode') {
    const box = el('div', { class: 'program-expander' });
    box.append(el('p', { class: 'hint', text: `Node ${node.payloadNode} of delegate ${node.delegateIndex} (${node.backend ?? '?'}, ${node.payloadKind} payload)${node.debugHandle == null ? '' : `, debug handle ${node.debugHandle}`}.` }));
    const back = el('button', { type: 'button', class: 'secondary compact', 'data-collapse': delegateOf(node.id), text: 'Collapse the delegate' });
    back.addEventListener('click', () => collapse(delegateOf(node.id)));
    box.append(back);
    return box;
  }
  if (node.kind !== 'delegate') return null;
  const why = note(node.id);
  if (why) return el('p', { class: 'hint', 'data-expand-note': '', text: `Not expanded: ${why}.` });
  if (!canExpand(node.id)) return null;
  const go = el('button', { type: 'button', class: 'secondary compact', 'data-expand': node.id, text: 'Show its nodes' });
  go.addEventListener('click', () => expand(node.id));
  return go;
}
