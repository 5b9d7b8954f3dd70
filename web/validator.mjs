import { etReady, readFile, fmt, el, jsonText, renderFileMap, renderSizeChart, download, errorText, buildDemo, longTable, showInBatches } from './common.mjs';
import { explain } from './explain.mjs';
import { fetchedNote, wireUrlForm } from './url-open.mjs';
import { wireCompare } from './weights-tools.mjs';
import { renderProgram } from './program-view.mjs';
import { shadeInstructions, showProfile, takeETDumps } from './profile-view.mjs';
import { bundledSummaryEl } from './bundled-view.mjs';
import { checkFiles, embeddedProgram } from './core-check.mjs';
import { coreCall, lastRanIn } from './core-client.mjs';

const $ = (id) => document.getElementById(id);
const nextTask = () => new Promise((resolve) => { setTimeout(resolve, 0); });
// The last ETDump joined (the Profile card): the Program view's instructions
// are shaded by its times each time a window of them is drawn.
let lastProfile = null;
document.getElementById('program')?.addEventListener('program-drawn', () => { if (lastProfile) shadeInstructions(lastProfile, $('program')); });
const status = (text, isError = false) => { $('status').textContent = text; $('status').className = `status${isError ? ' error' : ''}`; };
let lastReport = null;
let checked = null;


// `names` maps the core's file labels ('pte', or a .ptd's key) to the names
// the user knows the files by.
function findingEl(f, severity, names) {
  const loc = [f.file && (Object.hasOwn(names, f.file) ? names[f.file] : f.file), f.offset != null && `byte ${f.offset}`, f.path && `at ${f.path}`].filter(Boolean).join(', ');
  return el('div', { class: `finding ${severity}` },
    el('div', {}, el('code', { text: f.code }), ` (${severity})${loc ? ` — ${loc}` : ''}`),
    el('div', { text: f.message }), el('div', { class: 'hint', text: explain(String(f.code)) }));
}

// "Needs ExecuTorch ≥ 1.0 · backends: XnnpackBackend · 14 kernels · 2 .ptd keys"
function requirementsEl(name, r) {
  const parts = [`Needs ExecuTorch ≥ ${r.minRuntimeVersion}`, `backends: ${r.backends.length ? r.backends.join(', ') : 'none'}`,
    `${r.operators.length} kernel${r.operators.length === 1 ? '' : 's'}`];
  if (r.externalData.length) parts.push(`${r.externalData.length} .ptd key${r.externalData.length === 1 ? '' : 's'}`);
  const details = el('details', {}, el('summary', { text: 'What sets these' }),
    el('ul', {}, r.features.map((f) => el('li', { text: `${f.feature}: ExecuTorch ${f.since}${f.where ? ` (${f.where})` : ''}` }))));
  if (r.operators.length) details.append(el('p', { text: `Kernels: ${r.operators.join(', ')}` }));
  if (r.unusedOperators?.length) details.append(el('p', { text: `Unused operator entries (no instruction calls them): ${r.unusedOperators.join(', ')}` }));
  if (r.externalData.length) {
    details.append(el('p', { text: `.ptd keys: ${r.externalData.map((e) => `${e.key} (${e.dtype ?? '?'}[${(e.shape ?? []).join(', ')}], ${e.bytes == null ? '?' : fmt(e.bytes)})`).join('; ')}` }));
  }
  return el('div', {}, el('p', {}, el('strong', { text: `${name}: ` }), parts.join(' · ')), details);
}

const specText = (d) => (d.compileSpecValues ?? []).map((c) => `${c.key ?? '(no key)'}=${c.value === null ? `<${c.bytes} bytes>` : c.value}`).join(', ');

// Where a .pte keeps its constant tensors, in words ('none': it has no
// constant data at all).
const STORAGE = { segment: 'in the constant segment', inline: 'inline in the program (constant_buffer)' };
const constantsText = (c) => (c.storage === 'none' || !c.count
  ? 'No constant data.' : `${c.count} tensor(s), ${fmt(c.totalBytes)}, ${STORAGE[c.storage] ?? c.storage}`);

// A model-card value as the file holds it: int64 exact, -0 kept, strings
// quoted, a NaN other than the canonical one with its bits ({ nanBits }).
const cardValue = (v) => (Array.isArray(v) ? `[${v.map(cardValue).join(', ')}]`
  : typeof v === 'string' ? JSON.stringify(v) : Object.is(v, -0) ? '-0' : v === null ? 'None'
    : typeof v === 'object' && typeof v.nanBits === 'string' ? `NaN (0x${v.nanBits})` : String(v));

// The model card first: methods that return only constants (get_max_seq_len, ...).
function metadataEl(metadata) {
  const entries = Object.entries(metadata ?? {});
  if (!entries.length) return [];
  return [el('h3', { text: `Model card (${entries.length})` }), longTable(['method', 'value'], entries, ([k, v]) => [k, cardValue(v)])];
}

// One button per delegate: its processed blob (what the backend loads),
// byte for byte. `extract(method, index)` returns it as a Blob.
function delegateButtons(fileName, m, extract) {
  const box = el('div', { class: 'row' });
  for (const d of m.delegates ?? []) {
    const label = `Download delegate ${d.index}${d.id ? ` (${d.id})` : ''} blob${d.size != null ? `, ${fmt(d.size)}` : ''}`;
    const button = el('button', { type: 'button', class: 'secondary', text: label });
    button.addEventListener('click', () => {
      try {
        const blob = extract(m.name, d.index);
        // Names from the file become plain file-name characters.
        const part = (t) => String(t).replace(/[^\w.-]/g, '_');
        download(blob, `${part(fileName.replace(/\.pte$/i, ''))}.${part(m.name)}.${d.index}${d.id ? `.${part(d.id)}` : ''}.bin`);
      } catch (e) {
        status(errorText(e), true);
      }
    });
    box.append(button);
  }
  return box;
}

// A delegate's decoded blob (inspect's payload): counts, histograms, and
// each named key with the file that holds it.
function payloadText(p) {
  if (p.kind === 'invalid') return `invalid: ${p.error}`;
  const counts = (h) => Object.entries(h ?? {}).map(([k, n]) => `${k} ×${n}`).join(', ');
  const parts = [p.kind];
  if (p.nodes != null) parts.push(`${p.nodes} nodes, ${p.values} values`);
  if (Object.keys(p.operators ?? {}).length) parts.push(`operators ${counts(p.operators)}`);
  if (Object.keys(p.dtypes ?? {}).length) parts.push(`dtypes ${counts(p.dtypes)}`);
  if (Object.keys(p.quantization ?? {}).length) parts.push(`quantization ${counts(p.quantization)}`);
  parts.push(`${fmt(p.constantBytes)} of constants in the blob`);
  const keys = p.namedKeys ?? [];
  if (keys.length) {
    const where = (k) => (k.in == null ? 'missing' : k.in === 'pte' ? 'in the .pte' : `in ${k.in}`);
    parts.push(`named keys: ${keys.slice(0, 5).map((k) => `${JSON.stringify(k.key)} ${where(k)}`).join(', ')}${keys.length > 5 ? ` and ${keys.length - 5} more` : ''}`);
  }
  return parts.join('; ');
}

// The first MAX_LISTED of a method's inputs or outputs (a method may take
// 20,000: one line of them all took the page seconds to lay out).
const MAX_LISTED = 50;
const listText = (items, text) => (items.length ? items.slice(0, MAX_LISTED).map(text).join('; ') +
  (items.length > MAX_LISTED ? `; … and ${(items.length - MAX_LISTED).toLocaleString('en-US')} more` : '') : '—');

function summaryEl(name, s, extract) {
  const box = el('div', {}, el('h3', { text: `${name} — ${s.format}, ${fmt(s.fileSize)}` }), metadataEl(s.metadata));
  const io = (v) => `${v.type}${v.dtype ? ` ${v.dtype}` : ''}${v.shape ? `[${v.shape.join(', ')}]` : ''}`;
  for (const m of s.methods ?? []) {
    const dl = el('dl', { class: 'kv' });
    const row = (k, v) => dl.append(el('dt', { text: k }), el('dd', { text: v }));
    row('Inputs', listText(m.inputs, io));
    row('Outputs', listText(m.outputs, io));
    row('Operators', m.operators.map((o) => `${o.name}${o.overload ? `.${o.overload}` : ''} ×${o.count}`).join(', ') || '—');
    row('Delegates', (m.delegates ?? []).map((d) => `${d.id ?? '(no id)'} (${d.location}${d.size != null ? `, ${fmt(d.size)}` : ''})${specText(d) ? ` — ${specText(d)}` : ''}`).join('; ') || '—');
    for (const d of m.delegates ?? []) if (d.payload) row(`Delegate ${d.index} payload`, payloadText(d.payload));
    if (m.memory) row('Memory plan', `${fmt(m.memory.plannedTotal)} in ${m.memory.plannedBuffers.length} buffer(s): ${m.memory.plannedBuffers.map((b) => fmt(b)).join(', ')}`);
    const pool = m.memory?.methodAllocator;
    if (pool) row('Method allocator', ['64-bit', 'arm32'].map((a) => `${a}: ${pool[a].withTempAllocator} bytes (${pool[a].withoutTempAllocator} without a temp allocator)`).join('; ') + ' — backends\' init() not included');
    row('Instructions', `${m.instructionCount} in ${m.chainCount} chain(s), ${m.valueCount} values`);
    box.append(el('h3', { text: `Method ${m.name}` }), dl);
    if (m.delegates?.length && m.name != null) box.append(delegateButtons(name, m, extract));
  }
  const pool = s.methodAllocator;
  if (pool && s.methods?.length) {
    const all = ['64-bit', 'arm32'].map((a) => `${a}: ${pool.allMethods[a].withTempAllocator} bytes (${pool.allMethods[a].withoutTempAllocator} without a temp allocator)`).join('; ');
    const data = pool.dataFiles ? `, with the ${pool.dataFiles} .ptd file(s) given${pool.mergedDataMap ? ' (a merged data map per method)' : ''}` : '';
    box.append(el('p', { text: `Method allocator for every method in one pool${data}: ${all} — for ${pool.runtime}, backends' init() not included.` }));
  }
  if (s.constants) {
    const c = s.constants;
    box.append(el('h3', { text: 'Constants' }), el('p', { text: constantsText(c) }));
    if (c.largest?.length) box.append(longTable(['largest constants', 'size', 'tensor', 'where'], c.largest, (k) => [k.name, fmt(k.bytes), `${k.dtype ?? '?'}[${(k.shape ?? []).join(', ')}]`, k.where]));
  }
  // namedData comes in columns (issue 29): the table's rows are indices.
  const named = s.namedData;
  const layout = (i) => (named.layouts && named.layout[i] !== null ? named.layouts[named.layout[i]] : null);
  if (named?.count) box.append(el('h3', { text: `Named data (${named.count.toLocaleString('en-US')})` }), longTable(['key', 'size', 'segment', 'tensor'], named.key.map((_, i) => i), (i) => [named.key[i] ?? '(no key)', named.size[i] == null ? '—' : fmt(named.size[i]), named.segment[i] ?? '—',
    layout(i)?.dtype ? `${layout(i).dtype}[${(layout(i).shape ?? []).join(', ')}]` : '—']));
  if (s.segments?.length) box.append(el('p', { text: `${s.segments.length.toLocaleString('en-US')} segment${s.segments.length === 1 ? '' : 's'}` }));
  if (s.externalTensors?.length) box.append(el('h3', { text: 'External tensors' }), longTable(['name', 'tensor', 'size', 'mutable'], s.externalTensors, (t) => [t.name, `${t.dtype ?? '?'}[${(t.shape ?? []).join(', ')}]`,
    t.size == null ? '—' : fmt(t.size), t.mutable ? 'yes' : 'no']));
  return box;
}

const WHOLE_FILE_LIMIT = 64 << 20;

// The files as the core's worker takes them: the bytes read, the File
// (the worker opens it by slices) or the URL a file was opened from (the
// worker opens it too: the page keeps its own source for Compare, the
// profile and extract; the browser's cache mostly serves the second read).
const sendable = (files, bytes) => files.map((f) => (f.url ? { name: f.name, url: f.url }
  : bytes.get(f.name) instanceof Uint8Array ? { name: f.name, bytes: bytes.get(f.name) } : { name: f.name, blob: f }));

// validate, inspect and graph (core-check.mjs) in the core's worker
// (core-client.mjs), the page answering meanwhile; here only when no
// worker can run them.
function check(et, files, bytes, pteFile) {
  const pteName = pteFile?.name ?? null;
  const onPage = () => checkFiles(et, files.map((f) => ({ name: f.name, source: bytes.get(f.name) })), pteName);
  return coreCall('check', { files: sendable(files, bytes), pteName }, onPage);
}

// The graph with every delegate expanded (the Program view asks for it once
// a method with a delegate is shown): in the worker too.
function expandGraph(et, files, bytes, pteFile, embedded, program, ptds) {
  const options = { delegates: 'expand' };
  const onPage = () => et.graph(program, { ...options, data: ptds });
  return () => coreCall('graph', { files: sendable(files, bytes), pteName: pteFile.name, options, embedded }, onPage);
}

async function run(chosen) {
  $('report').disabled = true;
  const { etdumps, rest: files } = takeETDumps(chosen);  // .etdp: the profile view
  if (!chosen.length) return;
  if (!files.length) return showProfile(await etReady, etdumps, null, {}, $('profile'));
  try {
    const et = await etReady;
    await et.ready();  // a core restarted after a failed check is usable again
    const pteFile = files.find((f) => /\.b?pte$/i.test(f.name)) ?? (files.length === 1 ? files[0] : null);
    const ptdFiles = files.filter((f) => f !== pteFile);
    status(`Reading ${files.map((f) => f.name).join(', ')}…`);
    // Small files are read whole (every padding byte gets checked); large
    // ones are opened by slices: only the header and flatbuffer are read, so
    // a multi-GB .ptd opens in seconds (padding past the head goes unchecked).
    const bytes = new Map();
    const partial = [];
    for (const f of files) {
      if (f.source) bytes.set(f.name, f.source);  // opened from a URL: its head is fetched
      else if (f.size <= WHOLE_FILE_LIMIT) bytes.set(f.name, await readFile(f));
      else { bytes.set(f.name, await et.openBlob(f, { digest: false })); partial.push(f.name); }
    }
    const ptds = Object.fromEntries(ptdFiles.map((f) => [f.name, bytes.get(f.name)]));
    checked = files.map((f) => ({ name: f.name, source: bytes.get(f.name) }));  // for Compare with…
    status(`Checking ${files.map((f) => f.name).join(', ')}…`);
    const { report, summaries, graph, urlBytes = 0 } = await check(et, files, bytes, pteFile);
    let program = pteFile && !/\.bpte$/i.test(pteFile.name) ? bytes.get(pteFile.name) : null;  // what the Program and Profile cards read
    const maps = $('maps'), sizes = $('sizes'), summary = $('summary'), needs = $('requirements');
    maps.replaceChildren(); sizes.replaceChildren(); summary.replaceChildren(); needs.replaceChildren();
    for (const f of files) {
      const s = summaries[f.name];
      if (s.error) { summary.append(el('p', { class: 'status error', text: `${f.name}: ${s.error}` })); continue; }
      // A .bpte (bundled-view.mjs): its test cases, and its embedded program
      // in every card a .pte fills (the program's own ranges in the map).
      let p = s, label = f.name;
      if (s.format === 'bpte') {
        summary.append(bundledSummaryEl(f.name, s, (n, ps) => summaryEl(n, ps, () => null)));
        if (!s.programSummary) continue;
        p = s.programSummary;
        label = `${f.name}: embedded program, bytes ${s.program.offset}–${s.program.offset + s.program.size} of the bundle`;
        if (f === pteFile) program = await embeddedProgram(bytes.get(f.name), s.program);
      } else {
        summary.append(summaryEl(f.name, s, (method, delegate) => et.extract(bytes.get(f.name), { method, delegate, output: 'blob' }).bytes));
      }
      const m = el('div'); maps.append(el('h3', { text: `${label} (${fmt(p.fileSize)})`, style: 'overflow-wrap:anywhere' }), m); renderFileMap(m, p, f.name);
      const c = el('div'); sizes.append(el('h3', { text: label, style: 'overflow-wrap:anywhere' }), c); renderSizeChart(c, p.bytesByCategory);
      if (p.weights?.delegateConstants > 0 || p.weights?.namedData > 0) c.append(el('p', { text: `Weights ${fmt(p.weights.total)}: constants ${fmt(p.weights.constants)}, named data ${fmt(p.weights.namedData)}, inside delegate blobs ${fmt(p.weights.delegateConstants)} (delegate graphs ${fmt(p.weights.delegateGraphs)})` }));
      if (p.requirements) needs.append(requirementsEl(label, p.requirements));
    }
    await nextTask();  // the cards above are laid out in a task of their own
    // The plan graph of the .pte, its external tensors named by their .ptd (program-view.mjs).
    const plans = Object.fromEntries((summaries[pteFile?.name]?.programSummary ?? summaries[pteFile?.name])?.methods?.map((m) => [m.name, m.memory?.plannedBuffers ?? null]) ?? []);
    if (pteFile && program && !summaries[pteFile.name]?.error) {
      const embedded = summaries[pteFile.name].format === 'bpte' ? summaries[pteFile.name].program : null;
      renderProgram($('program'), et, program, ptds, pteFile.name, { plans, graph, expandGraph: expandGraph(et, files, bytes, pteFile, embedded, program, ptds) });
    }
    else $('program').replaceChildren(el('p', { class: 'hint', text: 'No program to draw: no .pte the core could read.' }));
    await nextTask();
    lastProfile = await showProfile(et, etdumps, pteFile ? program : null, ptds, $('profile'));
    if (!needs.childElementCount) needs.append(el('p', { class: 'hint', text: 'None to show: no file here is a .pte or .ptd the core could read (see the findings).' }));
    $('verdict').textContent = report.ok ? `Valid — ${report.warnings.length} warning(s)` : `Invalid — ${report.errors.length} error(s), ${report.warnings.length} warning(s)`;
    $('verdict').className = `verdict ${report.ok ? 'ok' : 'bad'}`;
    // The core labels the .pte 'pte' (a lone .ptd: its only key).
    const names = pteFile ? { pte: pteFile.name } : { pte: files[0].name };
    // The first 100 findings, then "Show more" (a report can hold a
    // thousand errors and as many warnings per file).
    const findings = report.errors.map((f) => [f, 'error']).concat(report.warnings.map((f) => [f, 'warning']));
    const list = el('div');
    $('findings').replaceChildren(list);
    showInBatches(list, findings, ([f, severity]) => findingEl(f, severity, names), 100, $('findings'));
    lastReport = { files: files.map((f) => ({ name: f.name, size: f.size })), version: et.version, validate: report, inspect: summaries };
    $('report').disabled = false;
    $('status').dataset.core = lastRanIn();  // where the core's work ran: 'worker' or 'page'
    status(`Checked ${files.map((f) => f.name).join(', ')}.${partial.length
      ? ` Read by slices (headers and flatbuffers only): ${partial.join(', ')}; padding past the flatbuffer was not inspected.` : ''}${fetchedNote(files, urlBytes)}`);
  } catch (e) {
    clearResults();
    $('verdict').textContent = 'Could not check the files'; $('verdict').className = 'verdict bad';
    $('findings').replaceChildren(el('div', { class: 'finding error', text: errorText(e) }));
    status(errorText(e), true);
  }
}

// Nothing of an earlier check stays on the page next to a new error.
function clearResults() {
  lastReport = null;
  $('report').disabled = true;
  for (const id of ['maps', 'sizes', 'summary', 'requirements', 'program']) $(id).replaceChildren(el('p', { class: 'hint', text: 'No file loaded.' }));
  $('verdict').textContent = '—'; $('verdict').className = 'verdict';
  $('findings').replaceChildren();
}

// Status of the URL form: an error shows once, under the URL field (marked
// invalid, and announced: role=alert), and clears the earlier results; the
// status line only points at it. Other lines go to the status.
function urlStatus(text, isError = false) {
  $('url-error')?.remove();
  $('url').removeAttribute('aria-invalid');
  $('url').removeAttribute('aria-describedby');
  if (!isError) { status(text); return; }
  clearResults();
  $('url-form').after(el('p', { class: 'field-error', id: 'url-error', role: 'alert', text }));
  $('url').setAttribute('aria-invalid', 'true');
  $('url').setAttribute('aria-describedby', 'url-error');
  status('Could not open the URL: see the message under the field.', true);
}

$('files').addEventListener('change', (e) => run([...e.target.files]));
const drop = $('drop');
drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (e) => { e.preventDefault(); drop.classList.remove('over'); run([...e.dataTransfer.files]); });
$('report').addEventListener('click', () => lastReport && download(new Blob([jsonText(lastReport)], { type: 'application/json' }), 'validation-report.json'));
$('demo').addEventListener('click', async () => {
  try {
    const { pte, ptd } = buildDemo(await etReady);
    $('files').value = '';
    run([new File([pte], 'demo.pte'), ...Object.entries(ptd).map(([t, b]) => new File([b], `${t}.ptd`))]);
  } catch (e) { status(errorText(e), true); }
});
etReady.then((et) => status(`Core ${et.version} ready. Choose files to check.`), (e) => status(`The core failed to load: ${errorText(e)}`, true));
// After the ready message, so a ?url= check's own status lines follow it.
wireUrlForm({ form: $('url-form'), input: $('url'), et: etReady, run, status: urlStatus });
wireCompare({ input: $('compare'), out: $('diff'), getCurrent: () => checked, status });
