import { etReady, readFile, fmt, el, renderFileMap, download, errorText, buildDemo } from './common.mjs';

const $ = (id) => document.getElementById(id);
const status = (text, isError = false) => { $('status').textContent = text; $('status').className = `status${isError ? ' error' : ''}`; };
let source = null;  // { name, pte: Uint8Array, merge: Uint8Array[] }
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

async function repack() {
  const et = await etReady;
  const o = options();
  if (source.merge.length) o.merge = source.merge;
  return { et, out: et.repack(source.pte, o) };
}

function showResult(et, out) {
  const box = $('result'); box.replaceChildren();
  const files = [[`${source.name}`, out.pte], ...Object.entries(out.ptd).map(([t, b]) => [`${t}.ptd`, b])];
  for (const [name, bytes] of files) {
    const m = el('div'); box.append(el('h3', { text: `${name} — ${fmt(bytes.byteLength)}` }), m);
    try { renderFileMap(m, et.inspect(bytes), name); } catch (e) { m.append(el('p', { class: 'status error', text: errorText(e) })); }
  }
  try {
    const v = et.validate(out.pte, Object.fromEntries(Object.entries(out.ptd).map(([t, b]) => [`${t}.ptd`, b])));
    box.append(el('p', { class: `verdict-line ${v.ok ? 'ok' : 'bad'}`, text: v.ok ? `Outputs validate: ok (${v.warnings.length} warning(s)).`
      : `Outputs do not validate: ${v.errors.map((f) => f.code).join(', ')}` }));
  } catch (e) { box.append(el('p', { class: 'status error', text: errorText(e) })); }
  if (out.moved?.length) box.append(el('p', { class: 'hint', text: `Moved to .ptd: ${out.moved.map((x) => `${x.key} (${fmt(x.bytes)})`).join(', ')}` }));
  return files;
}

$('preview').addEventListener('click', async () => {
  try { const { et, out } = await repack(); lastOut = out; showResult(et, out); status('Preview ready; nothing written yet.'); } catch (e) { status(errorText(e), true); }
});

// Outputs are Blobs built in chunks so the progress bar advances on large writes.
async function toBlob(bytes, onProgress) {
  const CHUNK = 8 << 20; const parts = [];
  for (let off = 0; off < bytes.byteLength; off += CHUNK) {
    parts.push(bytes.subarray(off, Math.min(off + CHUNK, bytes.byteLength)));
    onProgress(Math.min(off + CHUNK, bytes.byteLength));
    await new Promise((r) => setTimeout(r, 0));
  }
  return new Blob(parts, { type: 'application/octet-stream' });
}

$('write').addEventListener('click', async () => {
  try {
    status('Writing…'); $('progress').value = 0;
    const { et, out } = await repack(); lastOut = out;
    const files = showResult(et, out);
    const total = files.reduce((a, [, b]) => a + b.byteLength, 0) || 1; let done = 0;
    const links = $('downloads'); links.replaceChildren();
    for (const [name, bytes] of files) {
      const base = done;
      const blob = await toBlob(bytes, (n) => { $('progress').value = (base + n) / total; });
      done += bytes.byteLength;
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
  status(`Loaded ${name} (${fmt(pte.byteLength)})${merge.length ? ` + ${merge.length} .ptd` : ''}.`);
}
$('pte').addEventListener('change', async (e) => {
  const f = e.target.files[0]; if (!f) return;
  try { await load(f.name, await readFile(f), await Promise.all([...$('merge').files].map(readFile))); } catch (err) { status(errorText(err), true); }
});
$('merge').addEventListener('change', async () => {
  if (source) source.merge = await Promise.all([...$('merge').files].map(readFile));
});
$('demo').addEventListener('click', async () => {
  try { const { pte, ptd } = buildDemo(await etReady); await load('demo.pte', pte, Object.values(ptd)); $('preview').click(); } catch (e) { status(errorText(e), true); }
});
const syncExt = () => { for (const i of $('extFields').querySelectorAll('input')) i.disabled = !$('externalize').checked; };
$('externalize').addEventListener('change', syncExt); syncExt();
etReady.then((et) => status(`Core ${et.version} ready. Load a .pte or try the demo.`), (e) => status(`The core failed to load: ${errorText(e)}`, true));
