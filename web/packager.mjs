import { etReady, readFile, fmt, el, renderFileMap, download, errorText, buildDemo } from './common.mjs';
import { wireWeights } from './weights-tools.mjs';
import { explain } from './explain.mjs';
import { wireBundleCases } from './bundle-cases.mjs';
import { coreCall } from './core-client.mjs';

const $ = (id) => document.getElementById(id);
const status = (text, isError = false) => { $('status').textContent = text; $('status').className = `status${isError ? ' error' : ''}`; };
// { name, pte, data: [[name, file]], merge[] }: opened Blobs (only their
// heads were read) or bytes.
let source = null;
let lastOut = null;

const num = (id) => ($(id).value === '' ? undefined : Number($(id).value));
export function options() {
  // Left empty or "keep": repack keeps the input's layout.
  const o = {};
  if (num('segAlign') !== undefined) o.segmentAlignment = num('segAlign');
  if ($('extract').value !== 'keep') o.extractDelegateSegments = $('extract').value === 'segments';
  if (num('tensorAlign')) o.constantTensorAlignment = num('tensorAlign');
  if (num('delegateAlign')) o.delegateAlignment = num('delegateAlign');
  if ($('externalize').checked) {
    const patterns = $('pattern').value.split(',').map((s) => s.trim()).filter(Boolean);
    o.externalize = { tag: $('tag').value || 'model', minBytes: num('minBytes') ?? 0, ...(patterns.length ? { patterns } : {}) };
  }
  return o;
}

// Errors that concern one field are shown under it (and the field marked
// invalid); others in the status line. The keywords are the option names
// the core and the package use in their messages.
const FIELD_OF_ERROR = [
  [/constant_?tensor_?alignment/i, 'tensorAlign'], [/delegate_?alignment/i, 'delegateAlign'], [/segment_?alignment/i, 'segAlign'],
  [/min_?bytes/i, 'minBytes'], [/pattern/i, 'pattern'], [/\btag\b/i, 'tag'], [/output (file )?name/i, 'outName'],
];

function clearFieldErrors() {
  for (const e of document.querySelectorAll('.field-error')) e.remove();
  for (const i of document.querySelectorAll('[aria-invalid]')) { i.removeAttribute('aria-invalid'); i.removeAttribute('aria-describedby'); }
}

// Old results and download links go as soon as a run starts or fails: what
// stays on the page always belongs to the current settings.
function clearResults() {
  for (const a of $('downloads').querySelectorAll('a')) URL.revokeObjectURL(a.href);
  $('downloads').replaceChildren();
  $('result').replaceChildren(el('p', { class: 'hint', text: 'Preview to see the new file map.' }));
  $('progress').value = 0;
  $('refusal').replaceChildren();
  lastOut = null;
}

// A refusal shows what repack said and why: the keys whose data is missing
// (MISSING_EXTERNAL_DATA), the validator's findings (INVALID_INPUT,
// INVALID_OUTPUT). Nothing is offered for download then.
function showRefusal(e) {
  const box = $('refusal'); box.replaceChildren();
  if (!e) return;
  if (e.code === 'MISSING_EXTERNAL_DATA') {
    box.append(el('p', { text: 'Add the .ptd files that hold these keys (or allow missing data):' }),
      el('ul', {}, ...(e.keys ?? []).map((k) => el('li', {}, el('code', { text: k })))));
  }
  for (const f of e.findings ?? []) {
    const where = [f.file, f.path, f.offset !== null && f.offset !== undefined ? `offset ${f.offset}` : null].filter(Boolean).join(' · ');
    box.append(el('div', { class: 'finding' }, el('div', {}, el('code', { text: f.code }), ` ${where}: ${f.message}`),
      el('div', { class: 'hint', text: explain(String(f.code)) })));
  }
}

// A file that cannot be loaded: its error in the status line, the plain
// words under the result.
function loadFailed(e) {
  clearResults();
  errorHint(e);
  status(errorText(e), true);
}

// The validator's plain words for an error that is not a field's: under the
// refusal, beside the error in the status line.
function errorHint(e) {
  if (!e?.code || e.code === 'MISSING_EXTERNAL_DATA' || e.code === 'INVALID_ARGUMENT') return;
  $('refusal').prepend(el('p', { class: 'hint', text: explain(String(e.code)) }));
}

function showError(e) {
  clearResults();
  showRefusal(e);
  const text = errorText(e);
  const id = FIELD_OF_ERROR.find(([re]) => re.test(String(e?.message ?? '')))?.[1];
  if (!id) { errorHint(e); status(text, true); return; }
  const input = $(id);
  const note = el('p', { class: 'field-error', id: `${id}-error`, text });
  input.closest('.field').append(note);
  input.setAttribute('aria-invalid', 'true');
  input.setAttribute('aria-describedby', note.id);
  status(`Not written: see ${input.labels?.[0]?.textContent ?? id}.`, true);
}

// Output names never equal an input's: the .pte is named by the user
// (default <input>.repacked.pte); a .ptd whose tag matches an input file's
// name gets `.repacked` too.
function outputNames(tags) {
  const inputs = new Set([source.name, ...source.data.map(([n]) => n), ...source.merge.map((m) => m.blob?.name ?? m.name).filter(Boolean)]);
  const pteName = $('outName').value.trim();
  if (!pteName) throw Object.assign(new Error('output file name is empty'), { code: 'INVALID_ARGUMENT' });
  if (inputs.has(pteName)) throw Object.assign(new Error(`output file name ${pteName} is the name of an input file`), { code: 'INVALID_ARGUMENT' });
  return { pte: pteName, ptd: tags.map((t) => (inputs.has(`${t}.ptd`) || `${t}.ptd` === pteName ? `${t}.repacked.ptd` : `${t}.ptd`)) };
}

// Outputs come back as Artifacts: pieces that reference the input files, so
// nothing is read or copied until a file is inspected or downloaded.
async function repack() {
  const et = await etReady;
  await et.ready();  // a core restarted after a failure is usable again
  const o = { ...options(), output: 'artifact', allowMissingData: $('allowMissing').checked };
  if (source.merge.length) o.merge = source.merge;
  // Each file the program uses is carried under its name: model.ptd -> model.
  o.data = Object.fromEntries(source.data);
  try {
    return { et, out: et.repack(source.pte, o) };
  } catch (e) {
    if (e?.code !== 'BLOB_NOT_OPENED') throw e;
    // Merging needed to compare data it could not read synchronously: load
    // the files whole once and try again.
    status('Reading the input files whole to compare their data…');
    const whole = (f) => (f.blob ? readFile(f.blob) : f);
    source = {
      ...source, pte: await whole(source.pte), merge: await Promise.all(source.merge.map(whole)),
      data: await Promise.all(source.data.map(async ([n, f]) => [n, await whole(f)])),
    };
    o.merge = source.merge; o.data = Object.fromEntries(source.data);
    return { et, out: et.repack(source.pte, o) };
  }
}

// Files up to this size are inspected and validated in the page (both read
// a whole file into wasm memory); larger ones: use the CLI.
const CHECK_LIMIT = 512 << 20;

// The worker's 'outputs' on this thread (no worker could start).
function checkOutputs(et, files, bytes) {
  const caught = (f) => { try { return f(); } catch (e) { return { error: e }; } };
  return { summaries: bytes.map((b) => caught(() => et.inspect(b))),
    report: caught(() => et.validate(bytes[0], Object.fromEntries(files.slice(1).map(([name], i) => [name, bytes[i + 1]])))) };
}

async function showResult(et, out) {
  const box = $('result'); box.replaceChildren();
  const names = outputNames(Object.keys(out.ptd));
  const files = [[names.pte, out.pte], ...Object.values(out.ptd).map((a, i) => [names.ptd[i], a])];
  const total = files.reduce((n, [, a]) => n + a.size, 0);
  const bytes = total <= CHECK_LIMIT ? await Promise.all(files.map(([, a]) => a.bytes())) : null;
  // inspect and validate in the core's worker (core-worker.mjs 'outputs'),
  // the page answering meanwhile.
  const checked = bytes && await coreCall('outputs', { files: files.map(([name], i) => ({ name, bytes: bytes[i] })) }, () => checkOutputs(et, files, bytes));
  files.forEach(([name, a], i) => {
    const m = el('div'); box.append(el('h3', { text: `${name} — ${fmt(a.size)}` }), m);
    if (!checked) return;
    const s = checked.summaries[i];
    if (s.error) m.append(el('p', { class: 'status error', text: errorText(s.error) })); else renderFileMap(m, s, name);
  });
  if (checked) {
    const v = checked.report;
    if (v.error) box.append(el('p', { class: 'status error', text: errorText(v.error) }));
    else {
      box.append(el('p', { class: `verdict-line ${v.ok ? 'ok' : 'bad'}`, text: v.ok ? `Outputs validate: ok (${v.warnings.length} warning(s)).`
        : `Outputs do not validate: ${v.errors.map((f) => f.code).join(', ')}` }));
    }
  } else {
    box.append(el('p', { class: 'hint', text: `${fmt(total)} of output: too large to inspect here; check it with \`npx executorch-pack validate\`.` }));
  }
  const d = out.delegates;
  if (d && d.inSegments + d.inline > 0) {
    const moved = d.movedToSegments + d.movedInline;
    box.append(el('p', { class: 'hint', text: moved ? `Delegate blobs moved: ${d.movedToSegments} into segments, ${d.movedInline} inline (now ${d.inSegments} in segments, ${d.inline} inline).`
      : `Delegate blobs kept where they were: ${d.inSegments} in segments, ${d.inline} inline.` }));
  }
  if (out.segmentAlignmentKept) box.append(el('p', { class: 'hint', text: `Segment alignment ${out.segmentAlignment}: the input's.` }));
  if (out.moved?.length) box.append(el('p', { class: 'hint', text: `Moved to .ptd: ${out.moved.map((x) => `${x.key} (${fmt(x.bytes)})`).join(', ')}` }));
  return files;
}

$('preview').addEventListener('click', async () => {
  clearFieldErrors();
  try {
    const { et, out } = await repack(); showRefusal(null); lastOut = out; await showResult(et, out); status('Preview ready; nothing written yet.');
  } catch (e) { showError(e); }
});

$('write').addEventListener('click', async () => {
  try {
    clearFieldErrors(); clearResults();
    status('Writing…');
    const { et, out } = await repack(); lastOut = out;
    const files = await showResult(et, out);
    const total = files.reduce((a, [, f]) => a + f.size, 0) || 1; let done = 0;
    const links = $('downloads');
    for (const [name, artifact] of files) {
      // A Blob from parts: slices of the input files, no copy of their data.
      const blob = artifact.toBlob();
      done += artifact.size;
      $('progress').value = done / total;
      links.append(el('a', { href: URL.createObjectURL(blob), download: name, text: `Download ${name} (${fmt(blob.size)})` }));
      download(blob, name);
    }
    $('progress').value = 1;
    status(`Wrote ${files.map(([n]) => n).join(', ')}.`);
  } catch (e) { showError(e); }
});

async function load(name, pte, data, merge) {
  source = { name, pte, data, merge };
  clearFieldErrors(); clearResults();
  $('outName').value = `${name.replace(/\.pte$/i, '')}.repacked.pte`;
  $('preview').disabled = false; $('write').disabled = false;
  const extra = [data.length ? `${data.length} .ptd used` : '', merge.length ? `${merge.length} .ptd to merge` : ''].filter(Boolean);
  status(`Loaded ${name} (${fmt(pte.size ?? pte.byteLength)})${extra.length ? ` + ${extra.join(', ')}` : ''}.`);
}
// Files are opened, not read: only the head of each (header and flatbuffer).
const openAll = async (files) => { const et = await etReady; return Promise.all([...files].map((f) => et.openBlob(f, { digest: false }))); };
const openData = async (files) => { const opened = await openAll(files); return [...files].map((f, i) => [f.name, opened[i]]); };
$('pte').addEventListener('change', async (e) => {
  const f = e.target.files[0]; if (!f) return;
  try { const [pte] = await openAll([f]); await load(f.name, pte, await openData($('data').files), await openAll($('merge').files)); } catch (err) { loadFailed(err); }
});
$('data').addEventListener('change', async () => {
  try { if (source) source.data = await openData($('data').files); } catch (err) { loadFailed(err); }
});
$('merge').addEventListener('change', async () => {
  try { if (source) source.merge = await openAll($('merge').files); } catch (err) { loadFailed(err); }
});
// The demo's .ptd is the data its .pte uses (an external bias).
$('demo').addEventListener('click', async () => {
  try {
    const { pte, ptd } = buildDemo(await etReady);
    await load('demo.pte', pte, Object.entries(ptd).map(([tag, bytes]) => [`${tag}.ptd`, bytes]), []);
    $('preview').click();
  } catch (e) { loadFailed(e); }
});
const syncExt = () => { for (const i of $('extFields').querySelectorAll('input')) i.disabled = !$('externalize').checked; };
$('externalize').addEventListener('change', syncExt); syncExt();
etReady.then((et) => status(`Core ${et.version} ready. Load a .pte or try the demo.`), (e) => status(`The core failed to load: ${errorText(e)}`, true));
wireWeights({ input: $('weights'), exportButton: $('exportWeights'), out: $('weightsResult'), links: $('weightsDownloads'), getSource: () => source, status });
// The program to bundle test cases with: the .pte just built, else the one
// loaded (read whole: its bytes go inside the bundle).
async function programToBundle() {
  if (lastOut?.pte) return { name: $('outName').value.trim() || 'model.pte', bytes: await lastOut.pte.bytes() };
  if (!source) return null;
  return { name: source.name, bytes: source.pte.blob ? await readFile(source.pte.blob) : source.pte };
}
wireBundleCases({ etReady, pteInput: $('bundlePte'), casesInput: $('bundleCases'), button: $('bundle'), out: $('bundleResult'), links: $('bundleDownloads'), getProgram: programToBundle });
