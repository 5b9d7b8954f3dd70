// The pages' diff and weights tools: "Compare with…" on the validator,
// "Replace weights from safetensors" and "Export weights" on the packager.
// Files are opened (heads read), never loaded whole; outputs are Blobs made
// of slices of the inputs.
import { etReady, el, fmt, download, errorText, showInBatches } from './common.mjs';

const short = (h) => (typeof h === 'string' ? h.slice(0, 12) : '?');
const shape = (s) => (Array.isArray(s) ? `[${s.join(', ')}]` : '');
const text = (v) => (v !== null && typeof v === 'object' ? JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? String(x) : x)) : String(v));

// Opens Files for the synchronous core (.pte/.ptd heads; no digests).
export async function openFiles(et, files) {
  return Promise.all([...files].map(async (f) => ({ name: f.name, source: await et.openBlob(f, { digest: false }) })));
}

// Splits opened files into the program (first .pte, else the only file) and data files.
export function programAndData(opened) {
  const main = opened.find((f) => /\.pte$/i.test(f.name)) ?? (opened.length === 1 ? opened[0] : null);
  return { main, data: opened.filter((f) => f !== main) };
}

export function renderDiff(container, aName, bName, r) {
  const s = r.summary;
  const verdict = r.identical ? 'Identical' : r.equivalent ? 'Equivalent — only the layout differs' : 'Different';
  container.replaceChildren(el('p', { class: `verdict-line ${r.equivalent ? 'ok' : 'bad'}`, text: `${aName} vs ${bName}: ${verdict}` }));
  const counts = (name, c) => (c ? `${name} +${c.added} −${c.removed} ~${c.changed}` : null);
  container.append(el('p', { class: 'hint', text: [counts('methods', s.methods), counts('tensors', s.tensors), counts('named data', s.namedData),
    counts('external data', s.externalData), `bytes changed ${fmt(s.bytesChanged)}`, `layout changes ${s.layoutChanges}`].filter(Boolean).join(' · ') }));
  // The first 100 rows, then "Show more" (a model can hold 100,000 tensors;
  // never spread into a call).
  const list = (title, rows) => {
    if (!rows.length) return;
    const ul = el('ul'), box = el('div', {}, ul);
    container.append(el('h3', { text: title }), box);
    showInBatches(ul, rows, (t) => el('li', { text: t }), 100, box);
  };
  if (r.methods) {
    list('Methods', [...r.methods.added.map((n) => `+ ${n}`), ...r.methods.removed.map((n) => `− ${n}`),
      ...r.methods.changed.flatMap((m) => m.changes.map((c) => `~ ${m.name}: ${c.field} ${text(c.a)} → ${text(c.b)}`))]);
  }
  const records = (c, describe) => [...c.added.map((x) => `+ ${x.name} ${describe(x)}`), ...c.removed.map((x) => `− ${x.name} ${describe(x)}`),
    ...c.changed.map((x) => `~ ${x.name}: ${x.fields.map((f) => `${f} ${text(x.a[f])} → ${text(x.b[f])}`).join('; ')}`)];
  if (r.tensors) list('Tensors', records(r.tensors, (t) => `${t.kind} ${t.dtype}${shape(t.shape)} ${fmt(t.size ?? 0)} sha256 ${short(t.sha256)}`));
  const blob = (x) => `${fmt(x.size)} sha256 ${short(x.sha256)}`;
  list('Named data', records(r.namedData, blob));
  if (r.externalData) list('Named data of the .ptd files', records(r.externalData, blob));
  list('Program fields', (r.programFields ?? []).slice(0, 50).map((f) => `${f.path}: ${text(f.a)} → ${text(f.b)}`));
  list('Layout', r.layout.map((f) => `${f.field}: ${text(f.a)} → ${text(f.b)}`));
}

// Validator: compares the files being checked (getCurrent() -> opened files)
// with a second set chosen in `input`.
export function wireCompare({ input, out, getCurrent, status }) {
  input.addEventListener('change', async () => {
    try {
      const current = getCurrent();
      if (!current) throw new Error('check a file first, then choose the files to compare it with');
      const et = await etReady;
      const a = programAndData(current);
      const b = programAndData(await openFiles(et, input.files));
      if (!a.main || !b.main) throw new Error('choose one .pte (with its .ptd files) or one .ptd on each side');
      status(`Comparing ${a.main.name} with ${b.main.name}…`);
      const r = await et.diff(a.main.source, b.main.source, {
        dataA: Object.fromEntries(a.data.map((f) => [f.name, f.source])), dataB: Object.fromEntries(b.data.map((f) => [f.name, f.source])),
      });
      renderDiff(out, a.main.name, b.main.name, r);
      status(`Compared ${a.main.name} with ${b.main.name}.`);
    } catch (e) {
      out.replaceChildren(el('p', { class: 'status error', text: errorText(e) }));
      status(errorText(e), true);
    }
  });
}

function offer(links, blob, name) {
  links.append(el('a', { href: URL.createObjectURL(blob), download: name, text: `Download ${name} (${fmt(blob.size)})` }));
  download(blob, name);
}

// Packager: new weights for the loaded program (getSource() -> {name, pte,
// merge}) from safetensors files, and its weights exported as safetensors.
export function wireWeights({ input, exportButton, out, links, getSource, status }) {
  input.addEventListener('change', async () => {
    try {
      const source = getSource();
      if (!source) throw new Error('load a .pte first');
      const et = await etReady;
      const checkpoints = [...input.files];
      const external = et.inspect(source.pte).externalTensors.length > 0;
      status(`Reading ${checkpoints.map((f) => f.name).join(', ')}…`);
      links.replaceChildren();
      if (external) {
        const r = await et.ptdFromWeights(source.pte, checkpoints, { output: 'artifact' });
        const name = `${source.name.replace(/\.pte$/i, '')}-weights.ptd`;
        offer(links, r.ptd.toBlob(), name);
        out.replaceChildren(el('p', { class: 'verdict-line ok', text: `${name}: ${r.written.length} tensor(s) from the checkpoint.` }));
        if (r.unused.length) out.append(el('p', { class: 'hint', text: `Not used by the program: ${r.unused.join(', ')}` }));
      } else {
        const r = await et.pteWithWeights(source.pte, checkpoints, { output: 'artifact' });
        const name = source.name.replace(/(\.pte)?$/i, '-weights.pte');
        offer(links, r.pte.toBlob(), name);
        out.replaceChildren(el('p', { class: 'verdict-line ok', text: `${name}: ${r.replaced.length} constant(s) replaced, ${r.kept.length} kept.` }));
        if (r.unused.length) out.append(el('p', { class: 'hint', text: `Not used by the program: ${r.unused.join(', ')}` }));
      }
      status('New weights written.');
    } catch (e) {
      out.replaceChildren(el('p', { class: 'status error', text: errorText(e) }));
      status(errorText(e), true);
    } finally {
      input.value = '';
    }
  });
  exportButton.addEventListener('click', async () => {
    try {
      const source = getSource();
      if (!source) throw new Error('load a .pte first');
      const et = await etReady;
      const r = et.exportWeights(source.pte, source.merge, { output: 'artifact' });
      links.replaceChildren();
      // Blob parts: slices of the input files, no copy of the tensors here.
      offer(links, r.safetensors.toBlob(), `${source.name.replace(/\.pte$/i, '')}.safetensors`);
      out.replaceChildren(el('p', { class: 'verdict-line ok', text: `${r.tensors.length} tensor(s) exported.` }));
      if (r.skipped.length) out.append(el('p', { class: 'hint', text: `Skipped: ${r.skipped.map((x) => `${x.name} (${x.reason})`).join(', ')}` }));
      status('Weights exported.');
    } catch (e) {
      out.replaceChildren(el('p', { class: 'status error', text: errorText(e) }));
      status(errorText(e), true);
    }
  });
}
