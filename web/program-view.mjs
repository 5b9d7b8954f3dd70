// The validator's Program view (issues 30, 38, 40): the selected method's
// plan graph from et.graph() (made in the core), top to bottom, laid out by
// dagre (./vendor/dagre.esm.js) one window at a time. A window is bounded by
// the boxes it draws (program-graph.mjs: MAX_NODES, an instruction's values
// past MAX_INPUTS collapsed into one expandable "+N more" box), so its
// layout stays small whatever the program; it opens at a scale that fits
// the card, never below 10 px labels (program-zoom.mjs). Nodes are styled
// by kind with a legend ([data-legend]); search by name; a properties panel
// (program-details.mjs); each instruction's element carries
// data-instruction="CHAIN:INDEX" (the Profile card shades them); the memory
// timeline (memory-timeline.mjs) follows the window. A delegate box,
// clicked, is replaced by its payload's nodes (program-expand.mjs).
import { el, errorText } from './common.mjs';
import { memoryTimeline } from './memory-timeline.mjs';
import { indexMethod, windowEnd, instructionCost, drawWindow, MAX_NODES, NARROW_NODES, MAX_INPUTS, MORE_STEP, CHAR } from './program-graph.mjs';
import { zoomer, MIN_SCALE } from './program-zoom.mjs';
import { showDetails, registerExpander } from './program-details.mjs';
import { delegateOf, delegatePanel, mergeExpanded } from './program-expand.mjs';
export { registerExpander } from './program-details.mjs';

const MAX_OPEN = 200;     // values one instruction shows at most when expanded (the panel lists all)
const MAX_RESULTS = 12;   // search results listed

const LEGEND = [['kernel', 'operator'], ['delegate', 'delegate (backend): press to show its nodes'], ['delegateNode', 'a delegate\'s node'], ['input', 'input'], ['output', 'output'], ['constant', 'constant'],
  ['external', 'external (.ptd)'], ['mutable', 'mutable'], ['jumpFalse', 'control (jump, move, free)'], ['stub', 'reference: drawn elsewhere (#N: its instruction)'],
  ['more', '+N more: collapsed values, press to show'], ['profiled', 'left stripe: share of run time, green → red (with an ETDump)']];

function legendEl() {
  const box = el('ul', { class: 'program-legend', 'data-legend': 'program', 'aria-label': 'Legend of the plan graph' });
  for (const [kind, text] of LEGEND) box.append(el('li', { 'data-kind': kind }, el('span', { class: 'swatch', 'aria-hidden': 'true' }), text));
  return box;
}

// Renders the Program card for one .pte: `source` and `data` ({name: file})
// as validate takes them; `plans`: {method name: plannedBuffers} from
// inspect (the memory plan's buffer sizes, per memory id); `graph`: the
// graph made already (the validator's worker: core-check.mjs), or its error;
// `expandGraph()`: a Promise of the graph with every delegate expanded
// (made in the worker; unset: made here, by et.graph).
export function renderProgram(box, et, source, data, fileName, { plans = {}, graph: made = null, expandGraph = null } = {}) {
  let graph;
  try {
    if (made?.error) throw made.error;
    graph = made ?? et.graph(source, { data });
  } catch (e) {
    box.replaceChildren(el('p', { class: 'status error', text: `${fileName}: ${errorText(e)}` }));
    return null;
  }
  const methods = graph.methods;
  // Every delegate expanded: asked for once a method with a delegate is
  // shown, so it is mostly there by the first click (null: it failed).
  let full, asked = null;
  const load = () => (asked ??= Promise.resolve()
    .then(() => (expandGraph ? expandGraph() : et.graph(source, { data, delegates: 'expand' })))
    .then((g) => { full = g ?? null; }, () => { full = null; }));
  const expandedOf = (i) => ({ ready: () => full !== undefined, method: () => full?.methods[i] ?? null, load });
  const pick = el('select', { id: 'program-method' });
  methods.forEach((m, i) => pick.append(el('option', { value: String(i), text: m.name ?? `(unnamed method ${m.index})` })));
  const view = el('div');
  box.replaceChildren(
    el('p', { class: 'hint', text: 'Instructions run top to bottom. Scroll or drag to pan, + and − (or ctrl + wheel) to zoom; select a box for its properties; a “+N more” box shows the values it stands for.' }),
    legendEl(), el('div', { class: 'row' }, el('label', { for: 'program-method', text: 'Method' }), pick), view);
  const show = () => showMethod(view, methods[Number(pick.value)], plans[methods[Number(pick.value)]?.name] ?? null, expandedOf(Number(pick.value)));
  pick.addEventListener('change', show);
  if (methods.length) show();
  else view.append(el('p', { class: 'hint', text: 'The program has no methods.' }));
  return graph;
}

// Search over the method's nodes by label and value name: [{node, text}].
function searchNodes(index, query) {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const found = [];
  for (const n of index.method.nodes) {
    const name = n.value != null ? index.method.values[n.value]?.name : null;
    if (String(n.label).toLowerCase().includes(q) || (name && name.toLowerCase().includes(q))) {
      found.push(n);
      if (found.length > MAX_RESULTS) break;
    }
  }
  return found;
}

// The position (in index.instructions) a node is seen beside: itself, the
// first instruction reading it, or the one writing it.
function anchorOf(index, node) {
  if (node.instruction) return index.positions.get(node.id) ?? 0;
  let best = null;
  for (const e of index.outgoing.get(node.id) ?? []) {
    const o = index.positions.get(e.to);
    if (o != null && (best === null || o < best)) best = o;
  }
  for (const e of best === null ? index.incoming.get(node.id) ?? [] : []) {
    const o = index.positions.get(e.from);
    if (o != null && (best === null || o < best)) best = o;
  }
  return best ?? 0;
}

// The panel part of delegates (registerExpander) asks the view showing the method.
const controllers = new WeakMap();  // method object drawn -> {canExpand, expand, collapse, note}
for (const kind of ['delegate', 'delegateNode']) registerExpander(kind, (node, method) => (controllers.has(method) ? delegatePanel(node, controllers.get(method)) : null));

// `full`: the method with its delegates expanded, { ready(), method(),
// load() } (renderProgram's expandedOf).
function showMethod(view, baseMethod, planned, full) {
  const fullMethod = full.method;
  if (baseMethod.nodes.some((n) => n.kind === 'delegate')) full.load();
  let method = baseMethod;
  let index = indexMethod(method);
  let total = index.instructions.length;
  const details = el('div', { class: 'program-details', 'aria-live': 'polite' }, el('h3', { text: 'Properties' }),
    el('p', { class: 'hint', text: 'Select a box to see its properties and values.' }));
  const caption = el('p', { class: 'hint program-caption' });
  const button = (text, id, label = text) => el('button', { type: 'button', class: 'secondary compact', id, text, 'aria-label': label });
  const prev = button('◀ Previous', 'program-prev', 'Previous instructions'), next = button('Next ▶', 'program-next', 'Next instructions');
  const zoomIn = button('+', 'program-zoom-in', 'Zoom in'), zoomOut = button('−', 'program-zoom-out', 'Zoom out'), fitButton = button('Fit', 'program-fit', 'Fit the card');
  const find = el('input', { type: 'search', id: 'program-find', placeholder: 'operator, tensor or key name', autocomplete: 'off' });
  const results = el('ul', { class: 'program-results', 'aria-label': 'Search results' });
  const canvas = el('div', { class: 'program-canvas', tabindex: '0', role: 'region', 'aria-label': `Plan graph of method ${method.name ?? method.index}; arrow keys scroll, + and − zoom, 0 fits` });
  const timeline = el('div', { class: 'program-timeline' });
  view.replaceChildren(el('div', { class: 'row program-search' }, el('label', { for: 'program-find', text: 'Find' }), find), results,
    el('div', { class: 'row program-tools' }, prev, next, zoomIn, zoomOut, fitButton, caption),
    el('div', { class: 'program-layout' }, canvas, details), el('h3', { text: 'Memory timeline' }), timeline);
  if (method.name !== null && method.name !== undefined) view.dataset.method = method.name;
  else delete view.dataset.method;

  const open = new Map();  // instruction id -> values shown
  let start = 0, end = 0, pinned = null, zoom = null;
  const expanded = new Set();  // delegate instruction ids shown as their nodes
  const payloadOf = (id) => (fullMethod()?.nodes ?? []).filter((n) => delegateOf(n.id) === id);
  // Until the expanded graph has come, a delegate offers to expand; a
  // click waits for it (then its note says why, when it cannot).
  const controller = {
    canExpand: (id) => !full.ready() || payloadOf(id).length > 0,
    note: (id) => (!full.ready() ? null : fullMethod() ? fullMethod().nodes.find((n) => n.id === id)?.expandNote ?? null : 'the expanded graph could not be made'),
    expand: async (id) => {
      await full.load();
      if (payloadOf(id).length) regroup(() => expanded.add(id), payloadOf(id)[0].id);
      else select(index.nodesById.get(id), canvas.querySelector(`[data-node="${CSS.escape(id)}"]`));
    },
    collapse: (id) => regroup(() => expanded.delete(id), id),
  };
  const regroup = (change, focusId) => {
    change();
    method = mergeExpanded(baseMethod, fullMethod() ?? baseMethod, expanded);
    controllers.set(method, controller);
    index = indexMethod(method);
    total = index.instructions.length;
    pinned = null;
    const at = index.positions.get(focusId);
    if (at != null && (at < start || at >= end)) start = at;
    start = Math.min(start, Math.max(0, total - 1));
    draw(focusId);
  };
  controllers.set(method, controller);
  const budget = () => (canvas.clientWidth && canvas.clientWidth < 560 ? NARROW_NODES : MAX_NODES);
  const maxChars = () => {
    const room = (canvas.clientWidth || 800) / MIN_SCALE - 24;
    return Math.max(16, Math.min(canvas.clientWidth && canvas.clientWidth < 560 ? 26 : 40, Math.floor(room / CHAR)));
  };
  // A click: a delegate that can be expanded is; any other box is selected.
  const onSelect = (node, box) => {
    if (node.kind === 'delegate' && !expanded.has(node.id) && controller.canExpand(node.id)) controller.expand(node.id);
    else select(node, box);
  };
  const select = (node, box) => {
    canvas.querySelector('.node.selected')?.classList.remove('selected');
    box?.classList.add('selected');
    showDetails(details, node, method);
  };
  const onMore = (id) => {
    const limit = open.get(id) ?? MAX_INPUTS;
    if (limit >= MAX_OPEN) { select(index.nodesById.get(id), null); return; }  // the panel lists them all, paged
    open.set(id, Math.min(MAX_OPEN, limit + MORE_STEP));
    const at = index.positions.get(id);
    if (windowEnd(index, start, open, budget()) <= at) start = at;
    draw();
    canvas.querySelector(`[data-node="more-in:${CSS.escape(id)}"], [data-node="${CSS.escape(id)}"]`)?.focus();
  };
  const draw = (focusId = null) => {
    end = windowEnd(index, start, open, budget());
    caption.textContent = total
      ? `Instructions ${start.toLocaleString('en-US')}–${(end - 1).toLocaleString('en-US')} of ${total.toLocaleString('en-US')} (${method.chains.length} chain${method.chains.length === 1 ? '' : 's'})`
      : 'This method runs no instruction.';
    prev.disabled = start === 0;
    next.disabled = end >= total;
    if (!total) { canvas.replaceChildren(); zoom = null; } else {
      const drawn = drawWindow(index, start, end, { open, pinned, maxChars: maxChars(), onMore, onSelect });
      canvas.replaceChildren(drawn.svg);
      zoom = zoomer(canvas, drawn.svg, drawn.width, drawn.height, drawn.first);
      const target = focusId && (drawn.boxes.get(focusId) ?? [...drawn.boxes.entries()].find(([k]) => k.startsWith(`ref:${focusId}>`))?.[1]);
      if (target) {
        select(index.nodesById.get(focusId), target);
        target.scrollIntoView({ block: 'nearest', inline: 'nearest' });
        target.focus({ preventScroll: true });
      }
    }
    // The timeline's x is the order (an expanded delegate's nodes share one).
    const order = (k) => index.instructions[k]?.order ?? 0;
    memoryTimeline(timeline, method, total ? order(start) : 0, total ? order(end - 1) + 1 : 0, planned);
    view.dispatchEvent(new CustomEvent('program-drawn', { bubbles: true }));
  };
  // Previous: the window that ends where this one starts (the same budget, backwards).
  const previousStart = () => {
    let s = start, used = 0;
    while (s > 0) {
      const c = instructionCost(index, index.instructions[s - 1], open);
      if (s < start && used + c > budget()) break;
      used += c;
      --s;
    }
    return s;
  };
  prev.addEventListener('click', () => { pinned = null; start = previousStart(); draw(); });
  next.addEventListener('click', () => { pinned = null; start = end; draw(); });
  zoomIn.addEventListener('click', () => zoom?.zoom(0.8));
  zoomOut.addEventListener('click', () => zoom?.zoom(1.25));
  fitButton.addEventListener('click', () => zoom?.fit());
  // Arrow keys on a box move to the next box in reading order.
  canvas.addEventListener('keydown', (ev) => {
    const at = ev.target.closest?.('.node');
    const dir = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 }[ev.key];
    if (!at || !dir) return;
    const all = [...canvas.querySelectorAll('.node')].map((n) => ({ n, r: n.getBoundingClientRect() }))
      .sort((a, b) => a.r.top - b.r.top || a.r.left - b.r.left).map((x) => x.n);
    all[Math.max(0, Math.min(all.length - 1, all.indexOf(at) + dir))]?.focus();
    ev.preventDefault();
  });
  find.addEventListener('input', () => {
    const found = searchNodes(index, find.value);
    results.replaceChildren();
    for (const n of found.slice(0, MAX_RESULTS)) {
      const b = el('button', { type: 'button', class: 'link', text: `${n.label}${n.instruction ? ` (#${n.order})` : ` (${n.kind})`}` });
      b.addEventListener('click', () => {
        pinned = n.instruction ? null : n.id;
        const order = anchorOf(index, n);
        if (order < start || order >= end) start = order;
        draw(n.id);
      });
      results.append(el('li', {}, b));
    }
    if (found.length > MAX_RESULTS) results.append(el('li', { class: 'hint', text: 'More match: type more of the name.' }));
    else if (find.value.trim() && !found.length) results.append(el('li', { class: 'hint', text: 'Nothing of that name in this method.' }));
  });
  draw();
}
