// Shared by the validator and packager pages: loading the package, file
// reading, the file map bar and the size chart.
import init from '/pkg/index.browser.mjs';

export const etReady = init();

// NOTE: npm/src has no Blob/File source yet (blobSource/outputs.mjs were not
// present when these pages were written), so files are read whole with
// Blob.arrayBuffer(); outputs are wrapped into Blobs from the returned bytes.
export async function readFile(file) { return new Uint8Array(await file.arrayBuffer()); }

export const fmt = (n) => {
  n = Number(n);
  if (n < 1024) return `${n} B`;
  const u = ['KiB', 'MiB', 'GiB']; let i = -1;
  do { n /= 1024; i++; } while (n >= 1024 && i < u.length - 1);
  return `${n.toFixed(n < 10 ? 2 : 1)} ${u[i]}`;
};
export const jsonText = (v) => JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? x.toString() : x), 2);

const KNOWN = ['preamble', 'header', 'flatbuffer', 'padding', 'constant', 'delegate', 'mutable', 'named', 'unused'];
const kindVar = (kind) => `var(--k-${KNOWN.find((k) => String(kind).toLowerCase().startsWith(k)) ?? 'other'})`;

export function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v; else if (k === 'text') e.textContent = v; else if (k === 'style') e.style.cssText = v; else e.setAttribute(k, v);
  }
  // An array kid is appended item by item: lists from a file (rows,
  // findings) can be far too long to pass as spread arguments.
  for (const kid of kids) {
    if (Array.isArray(kid)) for (const k of kid) e.append(k); else e.append(kid);
  }
  return e;
}

// A to-scale bar of summary.segmentMap; each range shows its offsets and
// size on hover/focus in the tip line below. The bar is one tab stop: the
// arrow keys (and Home/End) move between its ranges (a roving tabindex).
export function renderFileMap(container, summary, label) {
  container.replaceChildren();
  const map = summary.segmentMap ?? [];
  const total = Number(summary.fileSize) || 1;
  const bar = el('div', { class: 'filemap', role: 'list', 'aria-label': `File map of ${label}; arrow keys move between ranges` });
  const tip = el('div', { class: 'tip', 'aria-live': 'polite', text: 'Hover or focus a range for its offsets.' });
  const kinds = new Set();
  for (const r of map) {
    kinds.add(r.kind);
    const desc = `${r.kind}${r.segment != null ? ` (segment ${r.segment})` : ''}${r.owners?.length ? ` — ${r.owners.join(', ')}` : ''}: ` +
      `bytes ${r.start}–${r.end} (${fmt(r.size)})${r.clipped ? ', clipped' : ''}`;
    const seg = el('div', { class: 'seg', role: 'listitem', tabindex: bar.children.length ? '-1' : '0', title: desc, 'aria-label': desc, 'data-kind': r.kind,
      style: `flex:${Math.max(Number(r.size) / total, 0.004)} 0 0; background:${kindVar(r.kind)}` });
    const show = () => { tip.textContent = desc; };
    seg.addEventListener('mouseenter', show); seg.addEventListener('focus', show);
    bar.append(seg);
  }
  bar.addEventListener('keydown', (e) => {
    const segs = [...bar.children];
    const at = segs.indexOf(document.activeElement);
    const to = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: segs.length - 1 }[e.key];
    if (at < 0 || to === undefined) return;
    e.preventDefault();
    const next = segs[Math.max(0, Math.min(segs.length - 1, to))];
    for (const s of segs) s.tabIndex = s === next ? 0 : -1;
    next.focus();
  });
  const legend = el('div', { class: 'legend' });
  for (const k of kinds) legend.append(el('span', { style: `--c:${kindVar(k)}`, text: k }));
  container.append(bar, tip, legend);
}

const LABELS = { header: 'Header', flatbufferMetadata: 'Program metadata', constants: 'Constants', mutableData: 'Mutable data',
  delegateBlobs: 'Delegate blobs', namedData: 'Named data', padding: 'Padding', unused: 'Unused bytes' };

export function renderSizeChart(container, byCategory) {
  container.replaceChildren();
  const all = Object.entries(byCategory ?? {}).map(([k, v]) => [k, Number(v)]);
  const entries = all.filter(([, v]) => v > 0);
  const empty = all.filter(([, v]) => v === 0).map(([k]) => (LABELS[k] ?? k).toLowerCase());
  const max = entries.reduce((m, [, v]) => Math.max(m, v), 1);
  const sum = entries.reduce((a, [, v]) => a + v, 0) || 1;
  const wrap = el('div', { class: 'bars', role: 'list', 'aria-label': 'Size breakdown' });
  for (const [k, v] of entries) {
    wrap.append(el('div', { class: 'bar', role: 'listitem' }, el('span', { class: 'name', text: LABELS[k] ?? k }),
      el('span', { class: 'track' }, el('span', { class: 'fill', style: `display:block;width:${(100 * v) / max}%` })),
      el('span', { text: `${fmt(v)} · ${((100 * v) / sum).toFixed(1)}%` })));
  }
  container.append(wrap);
  if (empty.length) container.append(el('p', { class: 'hint', text: `None: ${empty.join(', ')}.` }));
}

export function download(blob, name) {
  const a = el('a', { href: URL.createObjectURL(blob), download: name });
  document.body.append(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

export function errorText(e) { return e?.code ? `${e.code}: ${e.message}` : String(e?.message ?? e); }

// A tiny demo model: one Linear layer with a constant weight in the .pte, an
// external bias and a named-data entry in the model.ptd.
export function buildDemo(et) {
  const FLOAT = 6;
  const weight = new Float32Array([0.5, -1, 2, 1.5, 0.25, -0.75]);
  const bias = new Float32Array([0.1, -0.2]);
  const tensor = (sizes, fields = {}) => ({ val_type: 'Tensor', val: { scalar_type: FLOAT, storage_offset: 0, sizes, dim_order: sizes.map((_, i) => i),
    requires_grad: false, layout: 0, data_buffer_idx: 0, allocation_info: null, shape_dynamism: 0, extra_tensor_info: null, ...fields } });
  const planned = (o) => ({ memory_id: 1, memory_offset_low: o, memory_offset_high: 0 });
  const program = {
    version: 0,
    execution_plan: [{ name: 'forward', container_meta_type: { encoded_inp_str: 'T1#1($)', encoded_out_str: 'T1#1($)' },
      values: [tensor([1, 3], { allocation_info: planned(0) }), tensor([2, 3], { data_buffer_idx: 1 }),
        tensor([2], { extra_tensor_info: { mutable_data_segments_idx: 0, fully_qualified_name: 'linear.bias', location: 1, device_type: 0, device_index: 0 } }),
        tensor([1, 2], { allocation_info: planned(16) })],
      inputs: [0], outputs: [3],
      chains: [{ inputs: [0], outputs: [3], instructions: [{ instr_args_type: 'KernelCall', instr_args: { op_index: 0, args: [0, 1, 2, 3, 3] } }], stacktrace: null }],
      operators: [{ name: 'aten::linear', overload: 'out' }], delegates: [], non_const_buffer_sizes: [0, 32], non_const_buffer_device: null }],
    constant_buffer: [{ storage: [] }, { storage: new Uint8Array(weight.buffer) }],
    backend_delegate_data: [], segments: [], constant_segment: { segment_index: 0, offsets: [] }, mutable_data_segments: null, named_data: null,
  };
  const store = new et.NamedDataStore();
  try {
    store.addNamedData('linear.weight_packed', weight, { alignment: 64, externalTag: 'model', tensorLayout: { scalarType: FLOAT, sizes: [2, 3], dimOrder: [0, 1] } });
    return et.serializeForExecutorch({ program, mutableData: null, externalConstantMap: { model: { 'linear.bias': 0 } }, externalConstantBuffer: [bias] },
      { segmentAlignment: 128 }, new et.FlatTensorSerializer({ segmentAlignment: 64 }), store);
  } finally { store.delete(); }
}
