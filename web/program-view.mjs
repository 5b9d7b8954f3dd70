// The validator's Program view (issue 30): the selected method's plan graph
// from et.graph() (made in the core), laid out by dagre (npm, served at
// /vendor/dagre.esm.js), pannable and zoomable, each instruction's element
// carrying data-instruction="CHAIN:INDEX"; a node's values (memory-plan
// range, where a constant's bytes are) on click or Enter; and a memory
// timeline of the planned buffers over instruction order.
//
// A program can hold 20,000 instructions: a layout of them all would take
// dagre minutes, so the graph is drawn by windows of WINDOW instructions in
// order (the first window at once, the others on demand), with the value
// nodes they use and stubs for edges that cross the window.
import { layout as dagreLayout, graphlib } from '/vendor/dagre.esm.js';
import { el, fmt, errorText } from './common.mjs';
import { memoryTimeline } from './memory-timeline.mjs';

export const WINDOW = 100;
const SVG = 'http://www.w3.org/2000/svg';
const svgEl = (tag, attrs = {}) => {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
};
const MAX_LABEL = 48;
const shortLabel = (s) => (s.length > MAX_LABEL ? `${s.slice(0, MAX_LABEL - 1)}…` : s);
const INSTRUCTION_KINDS = new Set(['kernel', 'delegate', 'jumpFalse', 'move', 'free', 'unknown']);

// Renders the Program card for one .pte: `source` and `data` ({name: file})
// as validate takes them.
export function renderProgram(box, et, source, data, fileName) {
  let graph;
  try {
    graph = et.graph(source, { data });
  } catch (e) {
    box.replaceChildren(el('p', { class: 'status error', text: `${fileName}: ${errorText(e)}` }));
    return null;
  }
  const methods = graph.methods;
  const pick = el('select', { id: 'program-method' });
  methods.forEach((m, i) => pick.append(el('option', { value: String(i), text: m.name ?? `(unnamed method ${m.index})` })));
  const view = el('div');
  box.replaceChildren(
    el('p', { class: 'hint', text: 'Each box is an instruction (its operator or backend); rounded boxes are inputs, outputs, constants and external tensors. Drag or use the arrow keys to pan, the wheel or + and − to zoom; click a box or press Enter on it to see its values.' }),
    el('div', { class: 'row' }, el('label', { for: 'program-method', text: 'Method' }), pick), view);
  const show = () => showMethod(view, methods[Number(pick.value)]);
  pick.addEventListener('change', show);
  if (methods.length) show();
  else view.append(el('p', { class: 'hint', text: 'The program has no methods.' }));
  return graph;
}

function showMethod(view, method) {
  const nodesById = new Map(method.nodes.map((n) => [n.id, n]));
  const instructions = method.nodes.filter((n) => n.instruction !== null);  // in order (chain by chain)
  const edgesOf = new Map();
  for (const e of method.edges) {
    for (const id of [e.from, e.to]) {
      let list = edgesOf.get(id);
      if (!list) edgesOf.set(id, list = []);
      list.push(e);
    }
  }
  const details = el('div', { class: 'program-details', 'aria-live': 'polite' },
    el('p', { class: 'hint', text: 'Select a box to see its values.' }));
  const caption = el('p', { class: 'hint program-caption' });
  const prev = el('button', { type: 'button', class: 'secondary', text: 'Previous instructions' });
  const next = el('button', { type: 'button', class: 'secondary', text: 'Next instructions' });
  const canvas = el('div', { class: 'program-canvas', tabindex: '0', role: 'region', 'aria-label': `Plan graph of method ${method.name ?? method.index}; arrow keys pan, + and − zoom, 0 resets` });
  const zoomIn = el('button', { type: 'button', class: 'secondary', text: 'Zoom in' });
  const zoomOut = el('button', { type: 'button', class: 'secondary', text: 'Zoom out' });
  const reset = el('button', { type: 'button', class: 'secondary', text: 'Fit' });
  const timeline = el('div', { class: 'program-timeline' });
  view.replaceChildren(el('div', { class: 'row' }, prev, next, zoomIn, zoomOut, reset), caption, canvas, details,
    el('h3', { text: 'Memory timeline' }), timeline);
  let start = 0;
  let pan = null;
  const draw = () => {
    const windowNodes = instructions.slice(start, start + WINDOW);
    const end = start + windowNodes.length;
    caption.textContent = instructions.length
      ? `Instructions ${start}–${end - 1} of ${instructions.length.toLocaleString('en-US')} (${method.chains.length} chain${method.chains.length === 1 ? '' : 's'})`
      : 'This method runs no instruction.';
    prev.disabled = start === 0;
    next.disabled = end >= instructions.length;
    pan = drawWindow(canvas, windowNodes, nodesById, edgesOf, method, (node) => showDetails(details, node, method));
    memoryTimeline(timeline, method, start, end);
    // Others colour the drawn instructions (the Profile card's times): they
    // hear of every redraw, and find the method on the view.
    view.dispatchEvent(new CustomEvent('program-drawn', { bubbles: true }));
  };
  if (method.name !== null && method.name !== undefined) view.dataset.method = method.name;
  else delete view.dataset.method;
  prev.addEventListener('click', () => { start = Math.max(0, start - WINDOW); draw(); });
  next.addEventListener('click', () => { start += WINDOW; draw(); });
  zoomIn.addEventListener('click', () => pan?.zoom(0.8));
  zoomOut.addEventListener('click', () => pan?.zoom(1.25));
  reset.addEventListener('click', () => pan?.fit());
  draw();
}

// Lays out one window's instructions with the edges coming into them; returns
// the pan/zoom. An edge from far back (an instruction more than NEAR earlier,
// outside the window, or a value node already drawn) comes from a reference
// box of its own beside its target: dagre's cost grows with the ranks an
// edge spans, and one tensor read by every instruction would otherwise span
// them all (150 such edges took dagre 11 s).
const NEAR = 6;
function drawWindow(canvas, windowNodes, nodesById, edgesOf, method, select) {
  const g = new graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: 'TB', nodesep: 18, ranksep: 28, marginx: 12, marginy: 12 });
  g.setDefaultEdgeLabel(() => ({}));
  const inWindow = new Set(windowNodes.map((n) => n.id));
  const shown = new Map();  // layout id -> {node, stub, text}
  const add = (id, node, stub = false) => {
    if (shown.has(id)) return;
    const text = shortLabel(stub && node.instruction ? `#${node.order} ${node.label}` : node.label);
    shown.set(id, { node, stub, text });
    g.setNode(id, { width: Math.min(MAX_LABEL, text.length) * 6.6 + 20, height: 28 });
  };
  for (const n of windowNodes) add(n.id, n);
  let k = 0;
  for (const n of windowNodes) {
    for (const e of edgesOf.get(n.id) ?? []) {
      if (e.to !== n.id) continue;  // each edge is drawn from its target's side
      const from = nodesById.get(e.from);
      const near = inWindow.has(e.from) && n.order - from.order <= NEAR;
      let source = e.from;
      if (!near && (from.instruction || shown.has(e.from))) {
        source = `ref:${e.from}>${n.id}`;
        add(source, from, true);
      } else {
        add(e.from, from);
      }
      g.setEdge(source, n.id, { edge: e }, `e${k++}`);
    }
    // Outputs this instruction produces.
    for (const e of edgesOf.get(n.id) ?? []) {
      const to = nodesById.get(e.to);
      if (e.from !== n.id || to.kind !== 'output') continue;
      add(e.to, to);
      g.setEdge(n.id, e.to, { edge: e }, `e${k++}`);
    }
  }
  dagreLayout(g);
  const { width = 100, height = 100 } = g.graph();
  const svg = svgEl('svg', { class: 'program-graph', role: 'group', 'aria-label': `${windowNodes.length} instructions`, viewBox: `0 0 ${width} ${height}` });
  const marker = svgEl('marker', { id: 'arrow', viewBox: '0 0 8 8', refX: '8', refY: '4', markerWidth: '7', markerHeight: '7', orient: 'auto' });
  marker.append(svgEl('path', { d: 'M0,0 L8,4 L0,8 z', fill: '#5b6475' }));
  svg.append(svgEl('defs'));
  svg.firstChild.append(marker);
  const edgeLayer = svgEl('g', { class: 'edges' });
  for (const ref of g.edges()) {
    const { points, edge } = g.edge(ref);
    const d = points.map((p, i) => `${i ? 'L' : 'M'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ');
    const path = svgEl('path', { d, class: `edge ${edge.kind}`, 'marker-end': 'url(#arrow)' });
    const title = svgEl('title');
    title.textContent = edge.kind === 'control' ? 'jump when false' : `v${edge.value}${edge.dtype ? ` ${edge.dtype}` : ''}${edge.shape ? `[${edge.shape.join(', ')}]` : ''}`;
    path.append(title);
    edgeLayer.append(path);
  }
  const nodeLayer = svgEl('g', { class: 'nodes' });
  for (const id of g.nodes()) {
    const { x, y, width: w, height: h } = g.node(id);
    const { node, stub, text } = shown.get(id);
    const attrs = { class: `node ${node.kind}${stub ? ' stub' : ''}`, transform: `translate(${(x - w / 2).toFixed(1)},${(y - h / 2).toFixed(1)})`, tabindex: '0', role: 'button',
      'aria-label': `${stub ? 'reference to ' : ''}${node.instruction ? `instruction ${node.instruction.chain}:${node.instruction.index}, ` : ''}${node.label}` };
    if (node.instruction && !stub) attrs['data-instruction'] = `${node.instruction.chain}:${node.instruction.index}`;
    const box = svgEl('g', attrs);
    box.append(svgEl('rect', { width: w.toFixed(1), height: h, rx: INSTRUCTION_KINDS.has(node.kind) ? 3 : 12 }));
    const label = svgEl('text', { x: (w / 2).toFixed(1), y: h / 2 + 4, 'text-anchor': 'middle' });
    label.textContent = text;
    box.append(label);
    const choose = () => {
      nodeLayer.querySelector('.selected')?.classList.remove('selected');
      box.classList.add('selected');
      select(node);
    };
    box.addEventListener('click', choose);
    box.addEventListener('keydown', (ev) => { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); choose(); } });
    nodeLayer.append(box);
  }
  svg.append(edgeLayer, nodeLayer);
  canvas.replaceChildren(svg);
  return panZoom(canvas, svg, width, height);
}

// viewBox pan and zoom: wheel (around the pointer), drag, and keys on the
// canvas (arrows pan, + and − zoom, 0 fits).
function panZoom(canvas, svg, width, height) {
  // Opens at a readable scale (at most 1000 units across, the canvas's
  // aspect), from the top left; Fit shows all.
  const aspect = canvas.clientWidth > 0 ? canvas.clientHeight / canvas.clientWidth : 0.5;
  const start = () => {
    const w = Math.min(width, 1000);
    return { x: 0, y: 0, w, h: Math.max(height > w * aspect ? w * aspect : height, 1) };
  };
  let box = start();
  svg.setAttribute('preserveAspectRatio', 'xMinYMin meet');
  const apply = () => svg.setAttribute('viewBox', `${box.x} ${box.y} ${box.w} ${box.h}`);
  apply();
  const zoom = (factor, cx = box.x + box.w / 2, cy = box.y + box.h / 2) => {
    const w = Math.min(Math.max(box.w * factor, 40), width * 8);
    const f = w / box.w;
    box = { x: cx - (cx - box.x) * f, y: cy - (cy - box.y) * f, w, h: box.h * f };
    apply();
  };
  const move = (dx, dy) => { box.x += dx * box.w; box.y += dy * box.h; apply(); };
  const fit = () => { box = { x: 0, y: 0, w: width, h: height }; apply(); };
  canvas.onwheel = (ev) => {
    ev.preventDefault();
    const r = svg.getBoundingClientRect();
    zoom(ev.deltaY > 0 ? 1.15 : 1 / 1.15, box.x + ((ev.clientX - r.left) / r.width) * box.w, box.y + ((ev.clientY - r.top) / r.height) * box.h);
  };
  let drag = null;
  canvas.onpointerdown = (ev) => { if (ev.target.closest('.node')) return; drag = { x: ev.clientX, y: ev.clientY }; canvas.setPointerCapture(ev.pointerId); };
  canvas.onpointermove = (ev) => {
    if (!drag) return;
    const r = svg.getBoundingClientRect();
    move(-(ev.clientX - drag.x) / r.width, -(ev.clientY - drag.y) / r.height);
    drag = { x: ev.clientX, y: ev.clientY };
  };
  canvas.onpointerup = () => { drag = null; };
  canvas.onkeydown = (ev) => {
    const step = { ArrowLeft: [-0.1, 0], ArrowRight: [0.1, 0], ArrowUp: [0, -0.1], ArrowDown: [0, 0.1] }[ev.key];
    if (step) move(...step);
    else if (ev.key === '+' || ev.key === '=') zoom(0.8);
    else if (ev.key === '-' || ev.key === '−') zoom(1.25);
    else if (ev.key === '0') fit();
    else return;
    ev.preventDefault();
  };
  return { zoom, fit };
}

const tensorText = (v) => (v.type === 'Tensor' ? `${v.dtype ?? '?'}[${(v.shape ?? []).join(', ')}]` : v.type);
const memoryText = (m) => (m ? `buffer ${m.id}, bytes ${m.offset}–${m.size == null ? '?' : Number(m.offset) + Number(m.size)} (${m.size == null ? '?' : fmt(m.size)})` : '—');
function dataText(d) {
  if (!d) return '—';
  if (d.kind === 'external') return `.ptd key ${d.key ?? '?'} in ${d.file ?? '(no .ptd given holds it)'}`;
  return `${d.kind}: ${d.where ?? '?'}${d.offset == null ? '' : `, file bytes ${d.offset}–${Number(d.offset) + Number(d.size ?? 0)}`}${d.size == null ? '' : ` (${fmt(d.size)})`}`;
}

// A node's facts and its values: for an instruction, the values it names.
function showDetails(details, node, method) {
  const facts = [['kind', node.kind], ['label', node.label]];
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
  const table = el('table', {}, el('thead', {}, el('tr', {}, ...['value', 'type', 'name', 'memory plan', 'bytes in file', 'live'].map((h) => el('th', { text: h })))),
    el('tbody', {}, rows.map((v) => el('tr', {}, ...[`v${v.index}`, tensorText(v), v.name ?? '—', memoryText(v.memory), dataText(v.data),
      v.live ? `#${v.live.first}–#${v.live.last}` : '—'].map((t) => el('td', { text: t }))))));
  details.replaceChildren(el('h3', { text: node.label }), dl, rows.length ? el('div', { class: 'table-wrap' }, table) : el('p', { class: 'hint', text: 'No values.' }));
}
