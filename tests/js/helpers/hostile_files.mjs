// Crafted hostile files for tests and bench/hostile.mjs (issue 11).

// A Program flatbuffer whose execution_plan holds `plans` offsets to one
// ExecutionPlan whose values hold `values` offsets to one empty EValue:
// plans x values tables from 4 bytes per offset. Laid out front to back
// (every offset points forward, as flatbuffers require).
export function dagPte(plans, values) {
  const size = 64 + 4 * (plans + values) + 64;
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  let at = 0;
  const u16 = (v) => { view.setUint16(at, v, true); at += 2; return at - 2; };
  const u32 = (v) => { view.setUint32(at, v, true); at += 4; return at - 4; };
  const align = (a) => { at = Math.ceil(at / a) * a; };
  const vtable = (objectSize, fields) => {
    align(2);
    const pos = u16(4 + 2 * fields.length);
    u16(objectSize);
    for (const f of fields) u16(f);
    return pos;
  };
  const table = (vt) => { align(4); const pos = at; u32((pos - vt) | 0); return pos; };
  const point = (slot, target) => view.setUint32(slot, target - slot, true);
  const sharedVector = (count, makeTarget) => {
    const vec = u32(count);
    at += 4 * count;
    const target = makeTarget();
    for (let i = 0; i < count; i++) point(vec + 4 + 4 * i, target);
    return vec;
  };
  u32(0);
  bytes.set([0x45, 0x54, 0x31, 0x32], at);  // "ET12"
  at += 4;
  const program = table(vtable(8, [0, 4]));  // Program.execution_plan
  const plansField = u32(0);
  point(plansField, sharedVector(plans, () => {
    const plan = table(vtable(8, [0, 0, 4]));  // ExecutionPlan.values
    const valuesField = u32(0);
    point(valuesField, sharedVector(values, () => table(vtable(4, []))));
    return plan;
  }));
  point(0, program);
  return bytes.subarray(0, at);
}

// A .ptd with `keys` named-data keys, all on one 4-byte buffer.
export function manyKeysPtd(et, keys) {
  const namedData = {};
  for (let i = 0; i < keys; i++) namedData[`k${i}`] = { bufferIndex: 0 };
  return new et.FlatTensorSerializer().serialize({ buffers: [new Uint8Array([1, 2, 3, 4])], namedData });
}

// `segments` named-data buffers of 72 bytes, equal but for 4 middle bytes.
export function manySegmentsPte(et, segments) {
  const all = new Uint8Array(72 * segments).fill(7);
  const buffers = [];
  const pteData = {};
  for (let i = 0; i < segments; i++) {
    const b = all.subarray(72 * i, 72 * (i + 1));
    new DataView(b.buffer, b.byteOffset).setUint32(32, i, true);
    buffers.push(b);
    pteData[`w${i}`] = { bufferIndex: i };
  }
  return et.serializePteBinary({ program: { version: 0, execution_plan: [] }, namedData: { buffers, pteData } });
}

// A .ptd whose `count` named-data entries are tables of their own that all
// point at one key string, one TensorLayout (Float [1]) and one 4-byte
// segment: 16 bytes per entry, so a million entries make a 16 MB file
// (issue 29). Laid out front to back, as dagPte.
export function sharedKeyPtd(count, key = 'w') {
  const keyBytes = new TextEncoder().encode(key);
  const bytes = new Uint8Array(256 + 16 * count + keyBytes.length);
  const view = new DataView(bytes.buffer);
  let at = 48;  // after the root offset, "FT01" and the 40-byte FH01 header (padded to 48)
  const u8 = (v) => { view.setUint8(at, v); at += 1; };
  const u16 = (v) => { view.setUint16(at, v, true); at += 2; };
  const u32 = (v) => { view.setUint32(at, v, true); at += 4; return at - 4; };
  const align = (a) => { at = Math.ceil(at / a) * a; };
  const vtable = (objectSize, fields) => {
    align(2);
    const pos = at;
    u16(4 + 2 * fields.length);
    u16(objectSize);
    for (const f of fields) u16(f);
    return pos;
  };
  const table = (vt) => { align(4); const pos = at; u32(pos - vt); return pos; };
  const point = (slot, target) => view.setUint32(slot, target - slot, true);
  const rootVt = vtable(12, [0, 4, 8]);  // FlatTensor: version (0, absent), segments, named_data
  const root = table(rootVt);
  const segmentsField = u32(0);
  const namedField = u32(0);
  point(segmentsField, at);
  const segmentSlot = u32(1) + 4;
  u32(0);
  const segmentVt = vtable(16, [0, 8]);  // DataSegment: offset (0, absent), size
  align(8);  // the u64 at +8 lands 8-aligned
  const segment = table(segmentVt);
  u32(0);
  view.setBigUint64(at, 4n, true);
  at += 8;
  point(segmentSlot, segment);
  const entryVt = vtable(12, [4, 0, 8]);  // NamedData: key, segment_index (0, absent), tensor_layout
  align(4);
  point(namedField, at);
  const vector = u32(count);
  at += 4 * count;
  const firstEntry = at;
  at += 12 * count;
  align(4);
  const keyPos = u32(keyBytes.length);
  bytes.set(keyBytes, at);
  at += keyBytes.length + 1;
  const layoutVt = vtable(13, [12, 4, 8]);  // TensorLayout: scalar_type, sizes, dim_order
  const layout = table(layoutVt);
  const sizesField = u32(0);
  const dimOrderField = u32(0);
  u8(6);  // Float
  align(4);
  point(sizesField, u32(1));
  u32(1);
  point(dimOrderField, u32(1));
  u8(0);
  for (let i = 0; i < count; i++) {
    const entry = firstEntry + 12 * i;
    view.setUint32(entry, entry - entryVt, true);
    point(entry + 4, keyPos);
    point(entry + 8, layout);
    point(vector + 4 + 4 * i, entry);
  }
  const flatbufferEnd = at;
  const base = Math.ceil(flatbufferEnd / 16) * 16;
  view.setUint32(0, root, true);
  bytes.set([0x46, 0x54, 0x30, 0x31, 0x46, 0x48, 0x30, 0x31], 4);  // "FT01", "FH01"
  view.setUint32(12, 40, true);
  view.setBigUint64(16, 48n, true);
  view.setBigUint64(24, BigInt(flatbufferEnd - 48), true);
  view.setBigUint64(32, BigInt(base), true);
  view.setBigUint64(40, 4n, true);
  bytes.set([1, 2, 3, 4], base);
  return bytes.subarray(0, base + 4);
}
