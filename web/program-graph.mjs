// One window of the Program view (program-view.mjs): which nodes and edges
// it holds (planWindows: bounded by nodes and edges, not by instructions),
// their top-to-bottom dagre layout and the SVG. An instruction reading more
// values than MAX_INPUTS shows the first ones and one "+N more" node, which
// expands (MORE_STEP at a time): one instruction reading 20,000 values is
// never 20,001 boxes at once.
import { layout as dagreLayout, graphlib } from './vendor/dagre.esm.js';

export const MAX_NODES = 36;   // boxes per window (at 390 px: NARROW_NODES)
export const NARROW_NODES = 18;
export const MAX_INPUTS = 6;   // value edges into (or out of) one instruction before "+N more"
export const MORE_STEP = 24;   // values an expansion adds
export const FONT = 12;        // SVG units; the view never draws it below 10 px
export const CHAR = 7.3;       // monospace advance at FONT
const NEAR = 6;                // an edge spanning more instructions comes from a reference box
const SVG = 'http://www.w3.org/2000/svg';
export const svgEl = (tag, attrs = {}) => {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
};
export const INSTRUCTION_KINDS = new Set(['kernel', 'delegate', 'delegateNode', 'jumpFalse', 'move', 'free', 'unknown']);

// What a node is called in the legend and the properties panel.
export const KIND_NAMES = {
  kernel: 'operator', delegate: 'delegate', delegateNode: 'delegate node', input: 'input', output: 'output', constant: 'constant',
  external: 'external (.ptd)', mutable: 'mutable', jumpFalse: 'control', move: 'control', free: 'control', unknown: 'unknown',
};

// The method's indexes the windows are planned from (once per method, and
// again when a delegate is expanded). Windows count positions in
// `instructions` (an expanded delegate's nodes share its order).
export function indexMethod(method) {
  const nodesById = new Map();
  for (const n of method.nodes) nodesById.set(n.id, n);
  const instructions = method.nodes.filter((n) => n.instruction !== null);
  const positions = new Map(instructions.map((n, i) => [n.id, i]));
  const incoming = new Map(), outgoing = new Map();
  const push = (map, id, e) => { let l = map.get(id); if (!l) map.set(id, l = []); l.push(e); };
  for (const e of method.edges) { push(incoming, e.to, e); push(outgoing, e.from, e); }
  return { method, nodesById, instructions, positions, incoming, outgoing };
}

// The edges an instruction shows: incoming ones, then the method outputs it
// writes; each list cut at its limit (`open`: instruction id -> limit).
function shownEdges(index, n, open, pinned) {
  const limit = open.get(n.id) ?? MAX_INPUTS;
  const ins = index.incoming.get(n.id) ?? [];
  const outs = (index.outgoing.get(n.id) ?? []).filter((e) => index.nodesById.get(e.to)?.kind === 'output');
  const cut = (list) => {
    let shown = list.length > limit ? list.slice(0, limit) : list;
    const pin = list.length > limit && pinned ? list.find((e) => e.from === pinned || e.to === pinned) : null;
    if (pin && !shown.includes(pin)) shown = [...shown.slice(0, limit - 1), pin];
    return { shown, hidden: list.length - shown.length };
  };
  return { ins: cut(ins), outs: cut(outs) };
}

// How many boxes instruction `n` brings to a window (itself, its shown
// values, one "+N more" per cut list).
export function instructionCost(index, n, open) {
  const { ins, outs } = shownEdges(index, n, open, null);
  return 1 + ins.shown.length + outs.shown.length + (ins.hidden ? 1 : 0) + (outs.hidden ? 1 : 0);
}

// The window starting at instruction `start`: as many instructions as fit
// in `budget` boxes (at least one). Returns its end (exclusive).
export function windowEnd(index, start, open, budget) {
  let used = 0, end = start;
  while (end < index.instructions.length) {
    const c = instructionCost(index, index.instructions[end], open);
    if (end > start && used + c > budget) break;
    used += c;
    ++end;
  }
  return end;
}

// Lays out instructions [start, end) and returns {svg, width, height, nodes:
// Map(layout id -> box element)}. `onMore(instructionId)` expands a cut
// list; `pinned`: a value node id kept in view whatever the cut.
export function drawWindow(index, start, end, { open, pinned, maxChars, onMore, onSelect, decorate }) {
  const { nodesById, instructions } = index;
  const windowNodes = instructions.slice(start, end);
  const g = new graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: 'TB', nodesep: 16, ranksep: 26, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  const inWindow = new Set(windowNodes.map((n) => n.id));
  const shown = new Map();  // layout id -> {node, stub, text, more}
  const clip = (s) => (s.length > maxChars ? `${s.slice(0, maxChars - 1)}…` : s);
  const add = (id, node, stub = false, more = null) => {
    if (shown.has(id)) return;
    const text = clip(more ? more.text : stub && node.instruction ? `#${node.order} ${node.label}` : node.label);
    shown.set(id, { node, stub, text, more });
    g.setNode(id, { width: Math.round(text.length * CHAR + 22), height: 30 });
  };
  for (const n of windowNodes) add(n.id, n);
  // Execution order top to bottom: each instruction a rank below the one
  // before it (edges laid out, not drawn), so independent instructions
  // never spread into one wide row.
  for (let i = 1; i < windowNodes.length; ++i) g.setEdge(windowNodes[i - 1].id, windowNodes[i].id, { edge: { kind: 'order' }, minlen: 1, weight: 8 }, `o${i}`);
  let k = 0;
  for (const n of windowNodes) {
    const { ins, outs } = shownEdges(index, n, open, pinned);
    for (const e of ins.shown) {
      const from = nodesById.get(e.from);
      if (!from) continue;
      const near = inWindow.has(e.from) && index.positions.get(n.id) - (index.positions.get(e.from) ?? -Infinity) <= NEAR;
      let source = e.from;
      if (!near && (from.instruction || shown.has(e.from))) {
        source = `ref:${e.from}>${n.id}`;
        add(source, from, true);
      } else {
        add(e.from, from);
      }
      g.setEdge(source, n.id, { edge: e }, `e${k++}`);
    }
    if (ins.hidden) {
      const id = `more-in:${n.id}`;
      add(id, n, false, { text: `+${ins.hidden.toLocaleString('en-US')} more inputs`, instruction: n.id, count: ins.hidden });
      g.setEdge(id, n.id, { edge: { kind: 'more' } }, `e${k++}`);
    }
    for (const e of outs.shown) {
      add(e.to, nodesById.get(e.to));
      g.setEdge(n.id, e.to, { edge: e }, `e${k++}`);
    }
    if (outs.hidden) {
      const id = `more-out:${n.id}`;
      add(id, n, false, { text: `+${outs.hidden.toLocaleString('en-US')} more outputs`, instruction: n.id, count: outs.hidden });
      g.setEdge(n.id, id, { edge: { kind: 'more' } }, `e${k++}`);
    }
  }
  dagreLayout(g);
  const { width = 100, height = 100 } = g.graph();
  const svg = svgEl('svg', { class: 'program-graph', role: 'group', 'aria-label': `Instructions ${start}–${end - 1}: ${shown.size} boxes`, viewBox: `0 0 ${width} ${height}` });
  const defs = svgEl('defs');
  const marker = svgEl('marker', { id: 'arrow', viewBox: '0 0 8 8', refX: '8', refY: '4', markerWidth: '7', markerHeight: '7', orient: 'auto' });
  marker.append(svgEl('path', { d: 'M0,0 L8,4 L0,8 z', fill: '#5b6475' }));
  defs.append(marker);
  const edgeLayer = svgEl('g', { class: 'edges' });
  for (const ref of g.edges()) {
    const { points, edge } = g.edge(ref);
    if (edge.kind === 'order') continue;
    const d = points.map((p, i) => `${i ? 'L' : 'M'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ');
    const path = svgEl('path', { d, class: `edge ${edge.kind}`, 'marker-end': 'url(#arrow)' });
    const title = svgEl('title');
    title.textContent = edge.kind === 'control' ? 'jump when false' : edge.kind === 'more' ? 'more values'
      : edge.payloadValue != null ? `delegate value ${edge.payloadValue}` : `v${edge.value}${edge.dtype ? ` ${edge.dtype}` : ''}${edge.shape ? `[${edge.shape.join(', ')}]` : ''}`;
    path.append(title);
    edgeLayer.append(path);
  }
  const nodeLayer = svgEl('g', { class: 'nodes' });
  const boxes = new Map();
  for (const id of g.nodes()) {
    const { x, y, width: w, height: h } = g.node(id);
    const { node, stub, text, more } = shown.get(id);
    const kind = more ? 'more' : node.kind;
    const what = more ? `${more.text} of ${node.label}; press to show them`
      : `${stub ? 'reference to ' : ''}${KIND_NAMES[node.kind] ?? node.kind}${node.instruction ? ` instruction ${node.instruction.chain}:${node.instruction.index}` : ''}: ${node.label}`;
    const attrs = { class: `node ${kind}${stub ? ' stub' : ''}`, transform: `translate(${(x - w / 2).toFixed(1)},${(y - h / 2).toFixed(1)})`,
      tabindex: '0', role: 'button', 'aria-label': what, 'data-node': id };
    if (node.instruction && !stub && !more) attrs['data-instruction'] = `${node.instruction.chain}:${node.instruction.index}`;
    if ((node.kind === 'delegate' || node.kind === 'delegateNode') && !stub && !more) attrs['data-delegate'] = String(node.delegateIndex ?? '');
    const box = svgEl('g', attrs);
    box.append(svgEl('rect', { width: w.toFixed(1), height: h, rx: more || INSTRUCTION_KINDS.has(node.kind) ? 3 : 14 }));
    // The profile's share of run time (shadeInstructions sets --profile-colour): a stripe, the kind's colours kept.
    if (node.instruction && !stub && !more) box.append(svgEl('rect', { class: 'heat', x: 1.5, y: 1.5, width: 5, height: h - 3, rx: 1.5 }));
    const label = svgEl('text', { x: (w / 2).toFixed(1), y: h / 2 + FONT * 0.36, 'text-anchor': 'middle', 'font-size': FONT });
    label.textContent = text;
    box.append(label);
    const title = svgEl('title');
    title.textContent = more ? more.text : node.label;
    box.append(title);
    const choose = () => (more ? onMore(more.instruction) : onSelect(node, box));
    box.addEventListener('click', choose);
    box.addEventListener('keydown', (ev) => { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); ev.stopPropagation(); choose(); } });
    decorate?.(box, node, { stub, more });
    nodeLayer.append(box);
    boxes.set(id, box);
  }
  svg.append(defs, edgeLayer, nodeLayer);
  const first = windowNodes.length ? g.node(windowNodes[0].id) : null;
  return { svg, width, height, boxes, first: first ? { x: first.x, y: first.y } : null };
}
