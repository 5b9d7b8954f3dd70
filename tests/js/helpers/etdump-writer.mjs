// A minimal ETDump (.etdp) writer for tests: blocks of ProfileEvents, laid
// out as flatcc does in the facts that matter to a reader (a 4-byte size
// prefix, offsets counted from byte 4, identifier ED00, scalars aligned to
// their size from the buffer's start). Written front to back: each table's
// vtable just before it, children after their parent (uoffsets point
// forward), so nothing needs a second pass but the patched offsets.
//
// blocks: [{ name: 'Default' | 'Execute', events: [{ name, chain, instruction,
// start, end }] }] (start/end Numbers or BigInts, as u64).

export function writeETDump(blocks) {
  const w = new Writer();
  w.u32(0);  // size prefix, patched
  const rootAt = w.u32(0);  // root offset (from byte 4), patched
  w.bytes(new TextEncoder().encode('ED00'));
  const root = w.table([['u32', 0], ['ref', () => w.vectorOfTables(blocks.map((b) => () => runData(w, b)))]]);
  w.patch32(rootAt, root - 4);
  w.align(8);
  w.patch32(0, w.length - 4);
  return w.finish();
}

function runData(w, block) {
  return w.table([
    ['ref', () => w.string(block.name)],
    ['i32', block.bundledInputIndex ?? -1],
    null,  // allocators
    ['ref', () => w.vectorOfTables(block.events.map((e) => () => w.table([['ref', () => profileEvent(w, e)]])))],
  ]);
}

function profileEvent(w, e) {
  return w.table([
    ['ref', () => w.string(e.name)],
    ['i32', e.chain],
    ['i32', e.instruction],
    ['i32', -1],
    null,
    null,
    ['u64', BigInt(e.start)],
    ['u64', BigInt(e.end)],
  ]);
}

class Writer {
  constructor() {
    this.buf = new Uint8Array(1024);
    this.view = new DataView(this.buf.buffer);
    this.length = 0;
  }
  reserve(n) {
    if (this.length + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + n));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  // Alignment counts from byte 4, where the flatbuffer starts.
  align(n) {
    while ((this.length - 4) % n !== 0) this.u8(0);
  }
  u8(v) { this.reserve(1); this.buf[this.length] = v; return this.length++; }
  u16(v) { this.reserve(2); this.view.setUint16(this.length, v, true); const at = this.length; this.length += 2; return at; }
  u32(v) { this.reserve(4); this.view.setUint32(this.length, v >>> 0, true); const at = this.length; this.length += 4; return at; }
  bytes(b) { this.reserve(b.length); this.buf.set(b, this.length); const at = this.length; this.length += b.length; return at; }
  patch32(at, v) { this.view.setUint32(at, v >>> 0, true); }
  // A uoffset at `at` to `target` (after it).
  link(at, target) { this.patch32(at, target - at); }
  string(text) {
    const b = new TextEncoder().encode(text);
    this.align(4);
    const at = this.u32(b.length);
    this.bytes(b);
    this.u8(0);
    return at;
  }
  vectorOfTables(makers) {
    this.align(4);
    const at = this.u32(makers.length);
    const slots = makers.map(() => this.u32(0));
    makers.forEach((make, i) => this.link(slots[i], make()));
    return at;
  }
  // fields: [type, value] in field order (null: absent). Inline layout: the
  // soffset, then fields largest first; refs written after the table.
  table(fields) {
    const size = { u64: 8, u32: 4, i32: 4, ref: 4 };
    const order = fields.map((f, i) => [f, i]).filter(([f]) => f !== null).sort((a, b) => size[b[0][0]] - size[a[0][0]]);
    let inline = 4;
    const place = new Map();
    for (const [f, i] of order) {
      const s = size[f[0]];
      inline = Math.ceil(inline / s) * s;
      place.set(i, inline);
      inline += s;
    }
    const vtableSize = 4 + 2 * fields.length;
    // vtable at an offset such that the table after it is 8-aligned.
    this.align(2);
    while ((this.length + vtableSize - 4) % 8 !== 0) this.u8(0);
    const vtable = this.length;
    this.u16(vtableSize);
    this.u16(inline);
    fields.forEach((f, i) => this.u16(f === null ? 0 : place.get(i)));
    const table = this.length;
    this.reserve(inline);
    this.buf.fill(0, table, table + inline);
    this.length = table + inline;
    this.view.setInt32(table, table - vtable, true);
    const refs = [];
    for (const [f, i] of order) {
      const at = table + place.get(i);
      if (f[0] === 'u64') this.view.setBigUint64(at, f[1], true);
      else if (f[0] === 'ref') refs.push([at, f[1]]);
      else this.view.setInt32(at, f[1], true);
    }
    for (const [at, make] of refs) this.link(at, make());
    return table;
  }
  finish() { return this.buf.slice(0, this.length); }
}
