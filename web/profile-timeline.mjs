// The Profile card's pictures (profile-view.mjs): the time unit, the colour
// legend ([data-legend="profile"]), per-operator bars and one run's
// timeline. Bounded whatever the ETDump holds: a timeline draws at most
// MAX_EVENT_BARS events (the longest), extremes are found by loops (never
// an array spread into Math.min/max: 300,000 arguments overflow the stack).
import { el } from './common.mjs';
import { MAX_EVENT_BARS, blockSpan } from './profile-digest.mjs';

const SVG = 'http://www.w3.org/2000/svg';
const svg = (tag, attrs = {}) => {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
};
export { MAX_EVENT_BARS };
export const METHOD_COLOUR = '#94a3b8';

// A stable colour per operator / delegate name.
export function colourOf(name) {
  let h = 0;
  for (let i = 0; i < name.length; ++i) h = (h * 31 + name.charCodeAt(i)) >>> 0;
  return `hsl(${h % 360} 62% 45%)`;
}
export const label = (e) => e.operator ?? e.delegate ?? e.name;

// The unit times are shown in, from the largest one shown (the file's are
// ns: the runtime's default clock). {name, div, text(v)}.
export function unitFor(maxNs) {
  const u = maxNs >= 1e6 ? { name: 'ms', div: 1e6 } : maxNs >= 1e3 ? { name: 'µs', div: 1e3 } : { name: 'ns', div: 1 };
  const num = (v) => {
    const x = Number(v) / u.div;
    return u.div === 1 ? String(Math.round(x)) : x.toFixed(x >= 100 ? 1 : x >= 10 ? 2 : 3);
  };
  return { ...u, num, text: (v) => `${num(v)} ${u.name}` };
}

// The legend of the colours used: the `names` (most time first), then
// method-level events.
export function legendEl(names, more) {
  const box = el('ul', { class: 'profile-legend', 'data-legend': 'profile', 'aria-label': 'Colours of the timelines and bars' });
  for (const n of names) box.append(el('li', {}, el('span', { class: 'swatch', style: `background:${colourOf(n)}`, 'aria-hidden': 'true' }), n));
  if (more) box.append(el('li', { class: 'hint', text: `${more} more in the tables` }));
  box.append(el('li', {}, el('span', { class: 'swatch', style: `background:${METHOD_COLOUR}`, 'aria-hidden': 'true' }), 'method (Method::execute, load)'));
  return box;
}

// Total time per name as horizontal bars (the `stats` rows, most first).
export function barsEl(stats, unit, limit = 20) {
  const rows = [...stats].sort((a, b) => Number(b.total) - Number(a.total)).slice(0, limit);
  let max = 1;
  for (const s of rows) max = Math.max(max, Number(s.total));
  const box = el('div', { class: 'bars profile-bars', role: 'list', 'aria-label': `Total time per name (${unit.name})` });
  for (const s of rows) {
    box.append(el('div', { class: 'bar', role: 'listitem' }, el('span', { class: 'name', text: s.name }),
      el('span', { class: 'track' }, el('span', { class: 'fill', style: `display:block;width:${((100 * Number(s.total)) / max).toFixed(1)}%;background:${colourOf(s.name)}` })),
      el('span', { class: 'num', text: `${unit.text(s.total)} · ${s.count}×` })));
  }
  return box;
}

// One execute block as an SVG timeline: the method's own events on the
// first lane, each instruction on the second, internal events below; a time
// axis in `unit` from the run's start.
export function timelineEl(block, unit) {
  const events = block.events;
  const { start, end, drawn } = blockSpan(block);  // found in the profile's worker (profile-digest.mjs)
  const span = Math.max(1, end - start);
  const width = 1000, lane = 18, top = 3 * lane;
  const laneOf = (e) => (e.chain < 0 ? 0 : e.internal ? 2 : 1);
  const root = svg('svg', { viewBox: `0 0 ${width} ${top + 2}`, class: 'timeline', role: 'img', width: '100%', preserveAspectRatio: 'none',
    'aria-label': `Timeline of run ${block.run} of ${block.method ?? 'an unknown method'}: ${events.length} events over ${unit.text(span)}` });
  for (const e of drawn) {
    const x = ((Number(e.startTime) - start) / span) * width;
    const w = Math.max(0.75, (Number(e.duration) / span) * width);
    const rect = svg('rect', { x: x.toFixed(2), y: laneOf(e) * lane, width: w.toFixed(2), height: lane - 3, rx: 2,
      fill: e.chain < 0 ? METHOD_COLOUR : colourOf(label(e)), 'data-instruction': e.chain < 0 ? '' : `${e.chain}:${e.instruction}` });
    const title = svg('title');
    title.textContent = `${label(e)}${e.internal ? ` (inside instruction ${e.instruction})` : ''} — ${unit.text(e.duration)} (chain ${e.chain}, instruction ${e.instruction})`;
    rect.append(title);
    root.append(rect);
  }
  root.append(svg('line', { x1: 0, y1: top + 1, x2: width, y2: top + 1, stroke: '#5b6475', 'stroke-width': 1 }));
  const axis = el('div', { class: 'time-axis', 'data-axis': 'time', 'aria-hidden': 'true' });
  for (const f of [0, 0.25, 0.5, 0.75, 1]) axis.append(el('span', { style: `left:${f * 100}%`, text: unit.text(f * span) }));
  const note = drawn.length < events.length ? el('p', { class: 'hint', text: `${events.length.toLocaleString('en-US')} events: the ${MAX_EVENT_BARS.toLocaleString('en-US')} longest drawn.` }) : null;
  return el('div', { class: 'timeline-box' }, root, axis, note ? [note] : []);
}
