import { etReady, readFile, fmt, el, renderFileMap, download, errorText, buildDemo } from './common.mjs';

const $ = (id) => document.getElementById(id);
const status = (text, isError = false) => { $('status').textContent = text; $('status').className = `status${isError ? ' error' : ''}`; };
// { name, pte, merge[] }: opened Blobs (only their heads were read) or bytes.
let source = null;
let lastOut = null;

const num = (id) => ($(id).value === '' ? undefined : Number($(id).value));
export function options() {
  const o = { segmentAlignment: num('segAlign'), extractDelegateSegments: $('extract').checked };
  if (num('tensorAlign')) o.constantTensorAlignment = num('tensorAlign');
  if (num('delegateAlign')) o.delegateAlignment = num('delegateAlign');
  if ($('externalize').checked) {
    const patterns = $('pattern').value.split(',').map((s) => s.trim()).filter(Boolean);
    o.externalize = { tag: $('tag').value || 'model', minBytes: num('minBytes') ?? 0, ...(patterns.length ? { patterns } : {}) };
  }
  return o;
}

// Outputs come back as Artifacts: pieces that reference the input files, so
// nothing is read or copied until a file is inspected or downloaded.
async function repack() {
  const et = await etReady;
  const o = { ...options(), output: 'artifact' };
  if (source.merge.length) o.merge = source.merge;
  try {
    return { et, out: et.repack(source.pte, o) };
  } catch (e) {
    if (e?.code !== 'BLOB_NOT_OPENED') throw e;
    // Merging needed to compare data it could not read synchronously: load
    // the files whole once and try again.
    status('Reading the input files whole to compare their data…');
    source = { ...source, pte: await readFile(source.pte.blob), merge: await Promise.all(source.merge.map((m) => readFile(m.blob ?? m))) };
    return { et, out: et.repack(source.pte, o) };
  }
}

// Files up to this size are inspected and validated in the page (both read
// a whole file into wasm memory); larger ones: use the CLI.
const CHECK_LIMIT = 512 << 20;

async function showResult(et, out) {
  const box = $('result'); box.replaceChildren();
  const files = [[`${source.name}`, out.pte], ...Object.entries(out.ptd).map(([t, a]) => [`${t}.ptd`, a])];
  const total = files.reduce((n, [, a]) => n + a.size, 0);
  const bytes = total <= CHECK_LIMIT ? await Promise.all(files.map(([, a]) => a.bytes())) : null;
  files.forEach(([name, a], i) => {
    const m = el('div'); box.append(el('h3', { text: `${name} — ${fmt(a.size)}` }), m);
    if (!bytes) return;
    try { renderFileMap(m, et.inspect(bytes[i]), name); } catch (e) { m.append(el('p', { class: 'status error', text: errorText(e) })); }
  });
  if (bytes) {
    try {
      const v = et.validate(bytes[0], Object.fromEntries(files.slice(1).map(([name], i) => [name, bytes[i + 1]])));
      box.append(el('p', { class: `verdict-line ${v.ok ? 'ok' : 'bad'}`, text: v.ok ? `Outputs validate: ok (${v.warnings.length} warning(s)).`
        : `Outputs do not validate: ${v.errors.map((f) => f.code).join(', ')}` }));
    } catch (e) { box.append(el('p', { class: 'status error', text: errorText(e) })); }
  } else {
    box.append(el('p', { class: 'hint', text: `${fmt(total)} of output: too large to inspect here; check it with \`npx executorch-pack validate\`.` }));
  }
  if (out.moved?.length) box.append(el('p', { class: 'hint', text: `Moved to .ptd: ${out.moved.map((x) => `${x.key} (${fmt(x.bytes)})`).join(', ')}` }));
  return files;
}

$('preview').addEventListener('click', async () => {
  try { const { et, out } = await repack(); lastOut = out; await showResult(et, out); status('Preview ready; nothing written yet.'); } catch (e) { status(errorText(e), true); }
});

$('write').addEventListener('click', async () => {
  try {
    status('Writing…'); $('progress').value = 0;
    const { et, out } = await repack(); lastOut = out;
    const files = await showResult(et, out);
    const total = files.reduce((a, [, f]) => a + f.size, 0) || 1; let done = 0;
    const links = $('downloads'); links.replaceChildren();
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
  } catch (e) { status(errorText(e), true); }
});

async function load(name, pte, merge) {
  source = { name, pte, merge };
  $('preview').disabled = false; $('write').disabled = false;
  status(`Loaded ${name} (${fmt(pte.size ?? pte.byteLength)})${merge.length ? ` + ${merge.length} .ptd` : ''}.`);
}
// Files are opened, not read: only the head of each (header and flatbuffer).
const openAll = async (files) => { const et = await etReady; return Promise.all([...files].map((f) => et.openBlob(f, { digest: false }))); };
$('pte').addEventListener('change', async (e) => {
  const f = e.target.files[0]; if (!f) return;
  try { const [pte] = await openAll([f]); await load(f.name, pte, await openAll($('merge').files)); } catch (err) { status(errorText(err), true); }
});
$('merge').addEventListener('change', async () => {
  try { if (source) source.merge = await openAll($('merge').files); } catch (err) { status(errorText(err), true); }
});
$('demo').addEventListener('click', async () => {
  try { const { pte, ptd } = buildDemo(await etReady); await load('demo.pte', pte, Object.values(ptd)); $('preview').click(); } catch (e) { status(errorText(e), true); }
});
const syncExt = () => { for (const i of $('extFields').querySelectorAll('input')) i.disabled = !$('externalize').checked; };
$('externalize').addEventListener('change', syncExt); syncExt();
etReady.then((et) => status(`Core ${et.version} ready. Load a .pte or try the demo.`), (e) => status(`The core failed to load: ${errorText(e)}`, true));
