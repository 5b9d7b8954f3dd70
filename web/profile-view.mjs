// The validator page's ETDump view (issue 31): a .pte (and its .ptd files)
// dropped with the .etdp a run of it wrote gives a per-operator table and a
// timeline per run, joined by the core (et.profile). validator.mjs calls
// takeETDumps() on the chosen files and showProfile() after its checks;
// shadeInstructions() colours a Program view's instruction elements
// (data-instruction="CHAIN:INDEX") by the time spent in them.
import { el, errorText, longTable, readFile, download, jsonText, showInBatches } from './common.mjs';
import { unitFor, legendEl, barsEl, timelineEl } from './profile-timeline.mjs';
import { isPacked, unpackResult } from './core-pack.mjs';
import { instructionTimes, useDigest } from './profile-digest.mjs';

// The .etdp files among `files`, and the rest (what the page checks).
export function takeETDumps(files) {
  const isETDump = (f) => /\.etdp$/i.test(f.name);
  return { etdumps: files.filter(isETDump), rest: files.filter((f) => !isETDump(f)) };
}

const HEAD = ['name', 'calls', 'total', 'min', 'p10', 'p50', 'p90', 'mean', 'max'];
const statsTable = (rows, unit) => longTable(HEAD.map((h, i) => (i > 1 ? `${h} (${unit.name})` : h)), rows,
  (s) => [s.name, String(s.count), ...[s.total, s.min, s.p10, s.p50, s.p90, s.mean, s.max].map(unit.num)], 100, { reflow: true, numeric: [1, 2, 3, 4, 5, 6, 7, 8] });
const RUNS_FIRST = 3, RUNS_STEP = 5;  // timelines drawn at first, and per "Show more"
const LEGEND_NAMES = 12;

// "forward ×2, (unknown) ×1": the blocks per method, in one pass.
function methodsText(blocks) {
  const counts = new Map();
  for (const b of blocks) counts.set(b.method ?? '(unknown)', (counts.get(b.method ?? '(unknown)') ?? 0) + 1);
  const parts = [];
  for (const [m, n] of counts) { if (parts.length === 8) { parts.push('…'); break; } parts.push(`${m} ×${n.toLocaleString('en-US')}`); }
  return parts.join(', ');
}

// et.profile in a worker (profile-worker.mjs) when the program is bytes:
// the page keeps answering while the core joins a large ETDump. A worker
// that cannot start leaves the work to this thread; the core's errors
// come back as they are (code and message).
function profileInWorker(etdump, pte) {
  return new Promise((resolve, reject) => {
    let worker;
    try { worker = new Worker(new URL('./profile-worker.mjs', import.meta.url), { type: 'module' }); } catch (e) { reject(e); return; }
    worker.onmessage = ({ data }) => {
      worker.terminate();
      if (data.error) reject(Object.assign(new Error(data.error.message), { code: data.error.code, fromCore: true }));
      else {
        const unpack = (v) => (isPacked(v) ? unpackResult(v) : v);  // a chunk per task
        // The digest (what shadeInstructions and timelineEl draw from) was found in the worker too.
        resolve(Promise.all([unpack(data.result), unpack(data.digest)]).then(([result, digest]) => { useDigest(result, digest); return result; }));
      }
    };
    worker.onerror = (e) => { worker.terminate(); reject(new Error(e.message || 'the profile worker failed')); };
    worker.postMessage({ etdump, pte });
  });
}

async function profileOf(et, etdump, pte, ptds) {
  if (typeof Worker === 'function' && pte instanceof Uint8Array) {
    try {
      return await profileInWorker(etdump, pte);
    } catch (e) {
      if (e.fromCore) throw e;
    }
  }
  return et.profile(etdump, pte, { data: ptds });
}

// Colours every element of `root` carrying data-instruction="CHAIN:INDEX"
// by the share of execute time its instruction took (the Program view's
// nodes; also the timelines' bars). Elements inside a [data-method] of
// another method are left alone. Returns how many were shaded.
export function shadeInstructions(profile, root = document) {
  const { times: time, max } = instructionTimes(profile);  // found once per profile (profile-digest.mjs)
  let shaded = 0, every = null;  // every method profiled, once
  for (const node of root.querySelectorAll('[data-instruction]')) {
    const id = node.getAttribute('data-instruction');
    if (!id) continue;
    const method = node.closest('[data-method]')?.getAttribute('data-method');
    if (!method && !every) { every = new Set(); for (const b of profile.blocks) every.add(b.method); }
    const candidates = method ? [method] : every;
    let t = 0;
    for (const m of candidates) t += time.get(`${m}|${id}`) ?? 0;
    if (!t || !max) continue;
    const share = t / max;
    const colour = `hsl(${Math.round(120 - 120 * share)} 70% 40%)`;
    node.style.setProperty('--profile-share', share.toFixed(3));
    // A box of the graph takes the colour as its border (program-view.css); other elements as an outline.
    if (node instanceof SVGElement) node.style.setProperty('--profile-colour', colour);
    else node.style.outline = `2px solid ${colour}`;
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
      const working = el('p', { class: 'hint', text: `Joining ${f.name} to the program…`, role: 'status' });
      container.append(working);
      let result;
      try { result = await profileOf(et, await readFile(f), pte, ptds); } finally { working.remove(); }
      last = result;
      const runs = result.blocks.filter((b) => b.run !== null && b.events.length);
      const stats = result.operators.concat(result.delegates);
      let maxNs = 1;
      for (const s of stats) maxNs = Math.max(maxNs, Number(s.total));
      const unit = unitFor(maxNs);
      // File names are long words: they wrap anywhere rather than widen the page.
      container.append(el('h3', { text: `${f.name}: ${runs.length.toLocaleString('en-US')} run(s), ${result.blocks.length.toLocaleString('en-US')} block(s)`, style: 'overflow-wrap:anywhere' }));
      const warnings = el('div');
      container.append(warnings);
      showInBatches(warnings, result.warnings, (w) => el('p', { class: 'finding warning', text: w, style: 'overflow-wrap:anywhere' }), 5, warnings, 100);
      container.append(el('p', { class: 'hint', style: 'overflow-wrap:anywhere', text: `Blocks per method: ${methodsText(result.blocks)}. The file's times are ns (the runtime's default clock); shown in ${unit.name}. Statistics over the execute runs (p10/p50/p90 as numpy's linear percentile).` }));
      const names = [...stats].sort((a, b) => Number(b.total) - Number(a.total)).map((s) => s.name);
      container.append(legendEl(names.slice(0, LEGEND_NAMES), Math.max(0, names.length - LEGEND_NAMES)));
      if (stats.length) container.append(el('h4', { text: `Total time per operator and delegate (${unit.name})` }), barsEl(stats, unit));
      if (result.operators.length) container.append(el('h4', { text: 'Operators' }), statsTable(result.operators, unit));
      if (result.delegates.length) container.append(el('h4', { text: 'Delegates' }), statsTable(result.delegates, unit));
      const timelines = el('div', { class: 'timelines' });
      container.append(el('h4', { text: `Timelines (${unit.name} from each run's start)` }), timelines);
      showInBatches(timelines, runs, (b) => el('div', {}, el('h5', { text: `Run ${b.run} of ${b.method ?? '?'} (block ${b.index})` }), timelineEl(b, unit)), RUNS_FIRST, timelines, RUNS_STEP);
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
