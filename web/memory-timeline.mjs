// The Program view's memory timeline: each memory-planned tensor of a
// method as a bar, x = the instructions it is live over (first to last use,
// in order), y = its byte range in its planned buffer; one lane per buffer,
// scaled to the buffer's size in the memory plan (non_const_buffer_sizes).
// Axes: instructions along the bottom ([data-axis="instructions"]), bytes
// beside each lane ([data-axis="bytes"]). Bytes of a buffer no tensor
// reaches are drawn as padding: the planner aligns tensor offsets and
// rounds the buffer's size up, so the plan can say 176 B where the last
// tensor ends at 168 B. Drawn at the box's pixel width (text stays 12 px).
// The instructions of the graph's current window are shaded.
import { el, fmt } from './common.mjs';
import { svgEl } from './program-graph.mjs';

const LANE = 84, HEAD = 22, GAP = 10, LEFT = 62, RIGHT = 10, BOTTOM = 34;
// Bars drawn at most (the largest first): a picture of more says nothing more
// (4,000, each with its title, made the 20,000-value program's window a
// ~500 ms task of layout; 1,000 fit the card's ~800 px as well).
export const MAX_BARS = 1000;

// About `want` round steps over [0, max].
function ticks(max, want) {
  if (max <= 0) return [0];
  const raw = max / want, mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const out = [];
  for (let v = 0; v <= max + 1e-9 && out.length < 50; v += step) out.push(Math.round(v));
  return out;
}

const text = (attrs, s) => { const t = svgEl('text', attrs); t.textContent = s; return t; };

// `planned`: the method's plannedBuffers (bytes per memory id) or null.
export function memoryTimeline(box, method, start, end, planned = null) {
  const tensors = method.values.filter((v) => v.memory && v.live && v.memory.size != null && Number(v.memory.size) > 0);
  if (!tensors.length) {
    box.replaceChildren(el('p', { class: 'hint', text: 'No memory-planned tensor is used by an instruction of this method.' }));
    return;
  }
  const reach = new Map();  // id -> bytes reached by its tensors
  for (const v of tensors) {
    const id = Number(v.memory.id);
    reach.set(id, Math.max(reach.get(id) ?? 0, Number(v.memory.offset) + Number(v.memory.size)));
  }
  const ids = [...reach.keys()].sort((a, b) => a - b);
  const planOf = (id) => (planned && planned[id] != null ? Number(planned[id]) : null);
  const extentOf = (id) => Math.max(reach.get(id), planOf(id) ?? 0);
  const width = Math.max(300, Math.floor(box.clientWidth || 800));
  const plot = width - LEFT - RIGHT;
  const count = Math.max(1, method.instructionCount);
  const x = (order) => LEFT + (order / count) * plot;
  const laneTop = (i) => i * (HEAD + LANE + GAP) + HEAD;
  const height = ids.length * (HEAD + LANE + GAP) + BOTTOM;
  const svg = svgEl('svg', { class: 'memory-timeline', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img',
    'aria-label': `Memory timeline: ${tensors.length} planned tensors in ${ids.length} buffer(s) over ${method.instructionCount} instructions` });
  svg.append(svgEl('rect', { class: 'window', x: x(start), y: HEAD - 2, width: Math.max(1, x(end) - x(start)), height: height - BOTTOM - HEAD + 2 }));
  const notes = [];
  ids.forEach((id, i) => {
    const top = laneTop(i), extent = extentOf(id), plan = planOf(id), used = reach.get(id);
    const pad = plan != null && plan > used ? plan - used : 0;
    svg.append(text({ x: 0, y: top - 6, class: 'lane-label' },
      `buffer ${id}: ${fmt(plan ?? used)}${plan != null ? ' planned' : ''}${pad ? ` · ${fmt(pad)} padding` : ''}`));
    svg.append(svgEl('rect', { class: 'lane', x: LEFT, y: top, width: plot, height: LANE }));
    if (pad) {
      const y = top + (used / extent) * LANE;
      const r = svgEl('rect', { class: 'padding', x: LEFT, y: y.toFixed(1), width: plot, height: Math.max(1, top + LANE - y).toFixed(1) });
      const t = svgEl('title');
      t.textContent = `bytes ${used}–${plan} of buffer ${id}: alignment padding (no tensor uses them)`;
      r.append(t);
      svg.append(r);
      notes.push(`buffer ${id}: the memory plan asks for ${fmt(plan)}; its tensors end at byte ${used}, so the last ${fmt(pad)} are alignment padding (the planner rounds the buffer up to its alignment; offsets are aligned too, so gaps between bars are padding as well)`);
    }
    const axis = svgEl('g', { class: 'axis', 'data-axis': 'bytes', 'aria-hidden': 'true' });
    axis.append(svgEl('line', { x1: LEFT, y1: top, x2: LEFT, y2: top + LANE }));
    for (const [v, dy] of [[0, 10], [extent, 0]]) {
      const y = top + (v / extent) * LANE;
      axis.append(svgEl('line', { x1: LEFT - 4, y1: y, x2: LEFT, y2: y }), text({ x: LEFT - 6, y: y + dy - 1, 'text-anchor': 'end' }, fmt(v)));
    }
    svg.append(axis);
  });
  const bars = tensors.length > MAX_BARS ? [...tensors].sort((a, b) => Number(b.memory.size) - Number(a.memory.size)).slice(0, MAX_BARS) : tensors;
  const lane = new Map(ids.map((id, i) => [id, i]));
  for (const v of bars) {
    const id = Number(v.memory.id), extent = extentOf(id), top = laneTop(lane.get(id));
    const bar = svgEl('rect', {
      class: 'tensor', x: x(Number(v.live.first)).toFixed(2), width: Math.max(1.5, x(Number(v.live.last) + 1) - x(Number(v.live.first))).toFixed(2),
      y: (top + (Number(v.memory.offset) / extent) * LANE).toFixed(2), height: Math.max(1, (Number(v.memory.size) / extent) * LANE).toFixed(2),
    });
    const title = svgEl('title');
    title.textContent = `v${v.index} ${v.dtype ?? '?'}[${(v.shape ?? []).join(', ')}]${v.name ? ` ${v.name}` : ''}: buffer ${id} bytes ${v.memory.offset}–${Number(v.memory.offset) + Number(v.memory.size)} (${fmt(v.memory.size)}), live #${v.live.first}–#${v.live.last}`;
    bar.append(title);
    svg.append(bar);
  }
  const bottom = height - BOTTOM;
  const axis = svgEl('g', { class: 'axis', 'data-axis': 'instructions', 'aria-hidden': 'true' });
  axis.append(svgEl('line', { x1: LEFT, y1: bottom, x2: LEFT + plot, y2: bottom }));
  for (const t of ticks(count, Math.max(2, Math.floor(plot / 70)))) {
    axis.append(svgEl('line', { x1: x(t), y1: bottom, x2: x(t), y2: bottom + 4 }), text({ x: x(t), y: bottom + 15, 'text-anchor': 'middle' }, `#${t}`));
  }
  axis.append(text({ x: LEFT + plot, y: bottom + 30, 'text-anchor': 'end' }, 'instruction (order) →'));
  svg.append(axis);
  box.replaceChildren(el('div', { class: 'timeline-wrap', tabindex: '0', role: 'region', 'aria-label': 'Memory timeline (scrolls sideways when wider than the card)' }, svg),
    el('p', { class: 'hint', text: `${tensors.length.toLocaleString('en-US')} planned tensors${tensors.length > MAX_BARS ? ` (the ${MAX_BARS} largest drawn)` : ''}; x: instruction order (0–${method.instructionCount}), y: bytes within each buffer, to the memory plan's size; shaded column: the instructions drawn above; hatched: padding. Hover a bar for its tensor.` }));
  for (const n of notes) box.append(el('p', { class: 'hint', text: n }));
}
