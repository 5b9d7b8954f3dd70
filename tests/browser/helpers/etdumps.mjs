// Hostile ETDumps for the page tests (issue 38): many runs, or one run of
// many events, of a one-instruction program (add.pte: instruction 0 of
// chain 0 is aten::add.out). The flatbuffer is laid out here directly (flatc
// from JSON takes ~20 s for 200,000 runs): the wire facts of
// src/schema/etdump.fbs (upstream's field slots), a 4-byte size prefix,
// offsets counting from byte 4, identifier ED00, every table once, the
// three name strings shared, each object after the ones pointing at it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

// `runs` Execute blocks of `events` operator calls each (plus the method's
// own event); written to dir/name.etdp, whose path is returned.
export function writeETDump(dir, name, { runs, events }) {
  const perRun = events + 1;
  const nEvents = runs * perRun;
  // Sizes: header 12, vtables, ETDump table, run vector, run tables, event
  // vectors, event tables, ProfileEvent tables (32 B, 8-aligned), strings.
  const VT_ETDUMP = [8, 8, 0, 4], VT_RUN = [12, 12, 4, 0, 0, 8], VT_EVENT = [6, 8, 4], VT_PE = [20, 32, 4, 8, 12, 0, 0, 0, 16, 24];
  let at = 12;
  const place = (size, align = 4) => { at = Math.ceil(at / align) * align; const p = at; at += size; return p; };
  const vt = [VT_ETDUMP, VT_RUN, VT_EVENT, VT_PE].map((v) => place(v.length * 2, 2));
  const root = place(8);
  const runVec = place(4 + 4 * runs);
  const runTable = place(12 * runs);
  const eventVecs = place((4 + 4 * perRun) * runs);
  const eventTables = place(8 * nEvents);
  const peTables = place(32 * nEvents, 8);
  const strings = ['Execute', 'OPERATOR_CALL', 'Method::execute'].map((s) => ({ s, at: place(4 + s.length + 1) }));
  const size = Math.ceil(at / 4) * 4;
  const buf = Buffer.alloc(size);
  // Offsets count from byte 4 (after the size prefix).
  const u32 = (pos, v) => buf.writeUInt32LE(v >>> 0, pos);
  const i32 = (pos, v) => buf.writeInt32LE(v, pos);
  const uoff = (pos, target) => u32(pos, target - pos);
  const table = (pos, vtable) => i32(pos, pos - vtable);
  u32(0, size - 4);
  uoff(4, root);
  buf.write('ED00', 8, 'latin1');
  [VT_ETDUMP, VT_RUN, VT_EVENT, VT_PE].forEach((v, k) => v.forEach((x, i) => buf.writeUInt16LE(x, vt[k] + 2 * i)));
  for (const { s, at: p } of strings) { u32(p, s.length); buf.write(s, p + 4, 'latin1'); }
  table(root, vt[0]);
  uoff(root + 4, runVec);
  u32(runVec, runs);
  let t = 1000n;
  for (let r = 0; r < runs; ++r) {
    const run = runTable + 12 * r, vec = eventVecs + (4 + 4 * perRun) * r;
    uoff(runVec + 4 + 4 * r, run);
    table(run, vt[1]);
    uoff(run + 4, strings[0].at);
    uoff(run + 8, vec);
    u32(vec, perRun);
    const begin = t;
    for (let e = 0; e < perRun; ++e) {
      const k = r * perRun + e, ev = eventTables + 8 * k, pe = peTables + 32 * k;
      uoff(vec + 4 + 4 * e, ev);
      table(ev, vt[2]);
      uoff(ev + 4, pe);
      table(pe, vt[3]);
      const method = e === events;
      uoff(pe + 4, strings[method ? 2 : 1].at);
      i32(pe + 8, method ? -1 : 0);
      i32(pe + 12, 0);
      const start = method ? begin : t + 10n, end = method ? t + 60n : t + 50n + BigInt(e % 50);
      buf.writeBigUInt64LE(start, pe + 16);
      buf.writeBigUInt64LE(end, pe + 24);
      if (!method) t += 100n;
    }
    t += 100n;
  }
  const path = join(dir, `${name}.etdp`);
  writeFileSync(path, buf);
  return path;
}
