// The Program view's memory timeline: each memory-planned tensor of a
// method as a bar, x = the instructions it is live over (first to last use,
// in order), y = its byte range in its planned buffer; one lane per buffer.
// The instructions of the graph's current window are shaded.
import { el, fmt } from './common.mjs';

const SVG = 'http://www.w3.org/2000/svg';
const svgEl = (tag, attrs = {}) => {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
};
const WIDTH = 1000, LANE = 110, GAP = 26;
// Bars drawn at most (the largest first): a picture of more says nothing more.
export const MAX_BARS = 4000;

export function memoryTimeline(box, method, start, end) {
  const planned = method.values.filter((v) => v.memory && v.live && v.memory.size != null && Number(v.memory.size) > 0);
  if (!planned.length) {
    box.replaceChildren(el('p', { class: 'hint', text: 'No memory-planned tensor is used by an instruction of this method.' }));
    return;
  }
  const buffers = new Map();  // id -> extent in bytes
  for (const v of planned) {
    const id = Number(v.memory.id);
    buffers.set(id, Math.max(buffers.get(id) ?? 0, Number(v.memory.offset) + Number(v.memory.size)));
  }
  const ids = [...buffers.keys()].sort((a, b) => a - b);
  const lane = new Map(ids.map((id, i) => [id, i]));
  const count = Math.max(1, method.instructionCount);
  const x = (order) => (order / count) * WIDTH;
  const height = ids.length * (LANE + GAP);
  const svg = svgEl('svg', { class: 'memory-timeline', viewBox: `0 0 ${WIDTH} ${height}`, role: 'img',
    'aria-label': `Memory timeline: ${planned.length} planned tensors in ${ids.length} buffer(s) over ${method.instructionCount} instructions` });
  svg.append(svgEl('rect', { class: 'window', x: x(start), y: 0, width: Math.max(1, x(end) - x(start)), height }));
  ids.forEach((id, i) => {
    const label = svgEl('text', { x: 2, y: i * (LANE + GAP) + 14, class: 'lane-label' });
    label.textContent = `buffer ${id}: ${fmt(buffers.get(id))}`;
    svg.append(label, svgEl('rect', { class: 'lane', x: 0, y: i * (LANE + GAP) + GAP - 6, width: WIDTH, height: LANE }));
  });
  const bars = planned.length > MAX_BARS ? [...planned].sort((a, b) => Number(b.memory.size) - Number(a.memory.size)).slice(0, MAX_BARS) : planned;
  for (const v of bars) {
    const id = Number(v.memory.id), extent = buffers.get(id);
    const top = lane.get(id) * (LANE + GAP) + GAP - 6;
    const bar = svgEl('rect', {
      class: 'tensor', x: x(Number(v.live.first)).toFixed(2), width: Math.max(1.5, x(Number(v.live.last) + 1) - x(Number(v.live.first))).toFixed(2),
      y: (top + (Number(v.memory.offset) / extent) * LANE).toFixed(2), height: Math.max(1, (Number(v.memory.size) / extent) * LANE).toFixed(2),
    });
    const title = svgEl('title');
    title.textContent = `v${v.index} ${v.dtype ?? '?'}[${(v.shape ?? []).join(', ')}]${v.name ? ` ${v.name}` : ''}: buffer ${id} bytes ${v.memory.offset}–${Number(v.memory.offset) + Number(v.memory.size)}, live #${v.live.first}–#${v.live.last}`;
    bar.append(title);
    svg.append(bar);
  }
  box.replaceChildren(svg, el('p', { class: 'hint', text: `${planned.length.toLocaleString('en-US')} planned tensors${planned.length > MAX_BARS ? ` (the ${MAX_BARS} largest drawn)` : ''}; x: instruction order (0–${method.instructionCount}), y: bytes within each buffer; shaded: the instructions drawn above. Hover a bar for its tensor.` }));
}
