// Shared by the validator and packager pages: loading the package, file
// reading, the file map bar and the size chart.
import init from './pkg/index.browser.mjs';

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

// A list of names for a label: the first few, then how many more (a
// segment a million named-data entries share has a million owners; inspect
// names its first few and counts them all: `total`).
export function namesText(names, limit = 3, total = names.length) {
  const shown = names.slice(0, limit);
  if (total <= shown.length) return shown.join(', ');
  return `${shown.join(', ')} and ${(total - shown.length).toLocaleString('en-US')} more`;
}

// Up to this many ranges, the map shows each; past it, ranges smaller than
// 1/MAP_SLOTS of the file are merged with their neighbours into one item
// (a .pte with 150,000 segments would otherwise need 300,000 elements).
const MAP_ITEMS = 200;
const MAP_SLOTS = 150;

// The map's items: single ranges, or runs of adjacent small ranges.
function mapItems(map, total) {
  if (map.length <= MAP_ITEMS) return map.map((r) => ({ ranges: [r], size: Number(r.size) }));
  const items = [];
  let run = null;
  const small = total / MAP_SLOTS;
  for (const r of map) {
    const size = Number(r.size);
    if (size >= small) {
      if (run) items.push(run);
      run = null;
      items.push({ ranges: [r], size });
      continue;
    }
    run ??= { ranges: [], size: 0 };
    run.ranges.push(r);
    run.size += size;
    if (run.size >= small) { items.push(run); run = null; }
  }
  if (run) items.push(run);
  return items;
}

function itemText(item) {
  const [r] = item.ranges;
  if (item.ranges.length === 1) {
    return `${r.kind}${r.segment != null ? ` (segment ${r.segment})` : ''}${r.owners?.length ? ` — ${namesText(r.owners, 3, Number(r.ownerCount ?? r.owners.length))}` : ''}: ` +
      `bytes ${r.start}–${r.end} (${fmt(r.size)})${r.clipped ? ', clipped' : ''}`;
  }
  const counts = new Map();
  for (const x of item.ranges) counts.set(x.kind, (counts.get(x.kind) ?? 0) + 1);
  const kinds = [...counts].map(([k, n]) => `${n.toLocaleString('en-US')} ${k}`).join(', ');
  const last = item.ranges[item.ranges.length - 1];
  return `${item.ranges.length.toLocaleString('en-US')} small ranges (${kinds}): bytes ${r.start}–${last.end} (${fmt(item.size)})`;
}

// The kind that holds most of an item's bytes (its colour).
function mainKind(item) {
  const bytes = new Map();
  for (const r of item.ranges) bytes.set(r.kind, (bytes.get(r.kind) ?? 0) + Number(r.size));
  return [...bytes].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
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
  for (const r of map) kinds.add(r.kind);
  const items = mapItems(map, total);
  for (const item of items) {
    const desc = itemText(item);
    const kind = mainKind(item);
    const seg = el('div', { class: item.ranges.length > 1 ? 'seg merged' : 'seg', role: 'listitem', tabindex: bar.children.length ? '-1' : '0',
      title: desc, 'aria-label': desc, 'data-kind': kind, style: `flex:${Math.max(item.size / total, 0.004)} 0 0; background:${kindVar(kind)}` });
    bar.append(seg);
  }
  // One listener for the bar (not one per range).
  const show = (e) => { if (e.target.parentElement === bar) tip.textContent = e.target.getAttribute('aria-label'); };
  bar.addEventListener('mouseover', show);
  bar.addEventListener('focusin', show);
  bar.addEventListener('keydown', (e) => {
    const segs = bar.children;
    const at = Array.prototype.indexOf.call(segs, document.activeElement);
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
  if (items.length < map.length) {
    container.append(el('p', { class: 'hint', text: `${map.length.toLocaleString('en-US')} ranges; runs of small ones are shown merged (the JSON report lists each).` }));
  }
}

// Puts toEl(item) for the first `limit` items of `list` into `body`, and
// a "Show more" button at the end of `place` for the next ones, a thousand
// at a time (`step`): a file can list a million entries (or a report
// thousands of findings), far too many to put in the page at once.
export function showInBatches(body, list, toEl, limit = 100, place = body, step = 1000) {
  let shown = 0;
  const more = el('button', { type: 'button', class: 'show-more' });
  const showNext = (count) => {
    const end = Math.min(list.length, shown + count);
    for (; shown < end; ++shown) body.append(toEl(list[shown]));
    const left = list.length - shown;
    more.textContent = `Show ${Math.min(left, step).toLocaleString('en-US')} more (${left.toLocaleString('en-US')} not shown)`;
    if (left === 0) more.remove();
  };
  more.addEventListener('click', () => showNext(step));
  showNext(limit);
  if (shown < list.length) place.append(more);
}

// A table of `list` showing `limit` rows at first (showInBatches). Each
// cell carries its column's name (data-label): a `reflow` table becomes one
// block per row on a phone (style.css); `numeric`: columns (by index) whose
// values never break.
export function longTable(head, list, toRow, limit = 100, { reflow = false, numeric = [] } = {}) {
  const body = el('tbody');
  const table = el('table', { class: reflow ? 'reflow' : '' }, el('thead', {}, el('tr', {}, head.map((h) => el('th', { text: h })))), body);
  const wrap = el('div', { class: 'table-wrap' }, table);
  const cell = (c, i) => el('td', { text: String(c), 'data-label': head[i] ?? '', class: numeric.includes(i) ? 'num' : '' });
  showInBatches(body, list, (item) => el('tr', {}, toRow(item).map(cell)), limit, wrap);
  return wrap;
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
