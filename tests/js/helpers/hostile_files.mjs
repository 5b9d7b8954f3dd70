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
