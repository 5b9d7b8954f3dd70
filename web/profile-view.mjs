// The validator page's ETDump view (issue 31): a .pte (and its .ptd files)
// dropped with the .etdp a run of it wrote gives a per-operator table and a
// timeline per run, joined by the core (et.profile). validator.mjs calls
// takeETDumps() on the chosen files and showProfile() after its checks;
// shadeInstructions() colours a Program view's instruction elements
// (data-instruction="CHAIN:INDEX") by the time spent in them.
import { el, errorText, longTable, readFile, download, jsonText } from './common.mjs';

const SVG = 'http://www.w3.org/2000/svg';
const svg = (tag, attrs = {}) => {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
};

// The .etdp files among `files`, and the rest (what the page checks).
export function takeETDumps(files) {
  const isETDump = (f) => /\.etdp$/i.test(f.name);
  return { etdumps: files.filter(isETDump), rest: files.filter((f) => !isETDump(f)) };
}

const fixed = (v) => (typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(1) : String(v));
const statsRow = (s) => [s.name, s.count, s.total, s.min, s.p10, s.p50, s.p90, s.mean, s.max].map(fixed);
const HEAD = ['name', 'calls', 'total', 'min', 'p10', 'p50', 'p90', 'mean', 'max'];

// A stable colour per operator / delegate name.
function colourOf(name) {
  let h = 0;
  for (let i = 0; i < name.length; ++i) h = (h * 31 + name.charCodeAt(i)) >>> 0;
  return `hsl(${h % 360} 62% 52%)`;
}

const label = (e) => e.operator ?? e.delegate ?? e.name;

// One execute block as an SVG timeline: the method's own events on the
// first lane, each instruction on the second, internal events below.
function timelineEl(block) {
  const events = block.events;
  const start = Math.min(...events.map((e) => Number(e.startTime)));
  const end = Math.max(...events.map((e) => Number(e.endTime)));
  const span = Math.max(1, end - start);
  const width = 1000;
  const lane = 18;
  const laneOf = (e) => (e.chain < 0 ? 0 : e.internal ? 2 : 1);
  const root = svg('svg', { viewBox: `0 0 ${width} ${3 * lane + 14}`, class: 'timeline', role: 'img', width: '100%',
    style: 'display:block;max-width:100%;height:auto',
    'aria-label': `Timeline of run ${block.run} of ${block.method ?? 'an unknown method'}: ${events.length} events over ${span} time units` });
  for (const e of events) {
    const x = ((Number(e.startTime) - start) / span) * width;
    const w = Math.max(0.75, (Number(e.duration) / span) * width);
    const rect = svg('rect', { x: x.toFixed(2), y: laneOf(e) * lane, width: w.toFixed(2), height: lane - 3, rx: 2,
      fill: e.chain < 0 ? '#94a3b8' : colourOf(label(e)), 'data-instruction': e.chain < 0 ? '' : `${e.chain}:${e.instruction}` });
    const title = svg('title');
    title.textContent = `${label(e)}${e.internal ? ` (inside instruction ${e.instruction})` : ''} — ${e.duration} (chain ${e.chain}, instruction ${e.instruction})`;
    rect.append(title);
    root.append(rect);
  }
  const axis = svg('text', { x: 0, y: 3 * lane + 11, 'font-size': 10, fill: '#555' });
  axis.textContent = `0 … ${span} (file time units)`;
  root.append(axis);
  return root;
}

// Colours every element of `root` carrying data-instruction="CHAIN:INDEX"
// by the share of execute time its instruction took (the Program view's
// nodes; also the timelines' bars). Elements inside a [data-method] of
// another method are left alone. Returns how many were shaded.
export function shadeInstructions(profile, root = document) {
  const time = new Map();  // "method|chain:index" -> total duration
  let max = 0;
  for (const b of profile.blocks) {
    if (b.run === null) continue;
    for (const e of b.events) {
      if (e.chain < 0 || e.internal) continue;
      const k = `${b.method}|${e.chain}:${e.instruction}`;
      const t = (time.get(k) ?? 0) + Math.max(0, Number(e.duration));
      time.set(k, t);
      max = Math.max(max, t);
    }
  }
  let shaded = 0;
  for (const node of root.querySelectorAll('[data-instruction]')) {
    const id = node.getAttribute('data-instruction');
    if (!id) continue;
    const method = node.closest('[data-method]')?.getAttribute('data-method');
    const candidates = method ? [method] : [...new Set(profile.blocks.map((b) => b.method))];
    const t = candidates.reduce((sum, m) => sum + (time.get(`${m}|${id}`) ?? 0), 0);
    if (!t || !max) continue;
    const share = t / max;
    node.style.setProperty('--profile-share', share.toFixed(3));
    node.style.outline = `2px solid hsl(${Math.round(120 - 120 * share)} 70% 45%)`;
    node.dataset.profileTime = String(t);
    ++shaded;
  }
  return shaded;
}

// Joins each .etdp to the .pte and shows the result in `container`.
export async function showProfile(et, etdumps, pte, ptds, container) {
  container.replaceChildren();
  if (!etdumps.length) {
    container.append(el('p', { class: 'hint', text: 'Drop the .etdp a run wrote (with its .pte) to see where the time went.' }));
    return null;
  }
  if (!pte) {
    container.append(el('p', { class: 'status error', text: 'An ETDump is joined to the .pte that ran: add the .pte.' }));
    return null;
  }
  let last = null;
  for (const f of etdumps) {
    try {
      const result = et.profile(await readFile(f), pte, { data: ptds });
      last = result;
      const runs = result.blocks.filter((b) => b.run !== null && b.events.length);
      // File names are long words: they wrap anywhere rather than widen the page.
      container.append(el('h3', { text: `${f.name}: ${runs.length} run(s), ${result.blocks.length} block(s)`, style: 'overflow-wrap:anywhere' }));
      for (const w of result.warnings) container.append(el('p', { class: 'finding warning', text: w, style: 'overflow-wrap:anywhere' }));
      container.append(el('p', { class: 'hint', style: 'overflow-wrap:anywhere', text: `Methods: ${result.blocks.map((b) => `${b.name} → ${b.method ?? '?'}`).join(', ')}. Times in the file's unit (ns with the runtime's default clock); statistics over the execute runs (p10/p50/p90 as numpy's linear percentile).` }));
      if (result.operators.length) container.append(el('h4', { text: 'Operators' }), longTable(HEAD, result.operators, statsRow));
      if (result.delegates.length) container.append(el('h4', { text: 'Delegates' }), longTable(HEAD, result.delegates, statsRow));
      for (const b of runs) {
        container.append(el('h4', { text: `Run ${b.run} of ${b.method ?? '?'} (block ${b.index})` }), el('div', { class: 'table-wrap' }, timelineEl(b)));
      }
      const trace = el('button', { type: 'button', class: 'secondary', text: 'Download Chrome trace (Perfetto)' });
      trace.addEventListener('click', () => download(new Blob([JSON.stringify(et.profileTrace(result))], { type: 'application/json' }), `${f.name}.trace.json`));
      const json = el('button', { type: 'button', class: 'secondary', text: 'Download profile (JSON)' });
      json.addEventListener('click', () => download(new Blob([jsonText(result)], { type: 'application/json' }), `${f.name}.profile.json`));
      container.append(el('div', { class: 'row' }, trace, json));
      shadeInstructions(result);
    } catch (e) {
      container.append(el('p', { class: 'status error', text: `${f.name}: ${errorText(e)}`, style: 'overflow-wrap:anywhere' }));
    }
  }
  return last;
}
