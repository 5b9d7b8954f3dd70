// Build step (issue 42, wasm size): rewrites a flatc .bfbs (reflection
// schema) as the compact table that src/schema/schema_load.cpp reads, keeping
// only what the schema layer uses. A .bfbs spends most of its bytes on
// flatbuffer framing (a table, vtable and Type table per field, strings
// padded to 4); this keeps each name once in a string pool and every number
// as a varint: the nine schemas take ~117 KB as .bfbs, ~22 KB like this.
// Usage: node compact_schema.mjs IN.bfbs OUT.etschema
//
// Layout (varint: LEB128; svarint: zigzag LEB128; str: varint index into the
// pool; keep in sync with schema_load.cpp):
//   varint n, n x (varint length, bytes)               the string pool
//   str file_ident, varint root (object index + 1; 0: none)
//   varint enums, each: str short name, u8 is_union, varint values, each:
//     svarint value, str name, and for a union varint member (object + 1)
//   varint objects, each: str namespace, str short name, u8 is_struct,
//     varint bytesize, varint fields (dense ids, in id order), each:
//     str name, u8 flags, u8 type (reflection's base_type numbering in
//     bits 0-5, 0x40 deprecated, 0x80 optional), then per flag: u8 element
//     (1), svarint type index (2), svarint default_integer (4), f64
//     little-endian default_real (8), varint struct offset (16), varint
//     force_align (32), str only_in (64).
import { readFileSync, writeFileSync } from 'node:fs';

const [input, output] = process.argv.slice(2);
const buf = readFileSync(input);
const u8 = (p) => buf[p];
const u16 = (p) => buf.readUInt16LE(p);
const i32 = (p) => buf.readInt32LE(p);
const u32 = (p) => buf.readUInt32LE(p);

// A table at `pos`: field(slot) is the position of field `slot` or 0.
function table(pos) {
  const vt = pos - i32(pos);
  const vtSize = u16(vt);
  return (slot) => {
    const o = 4 + 2 * slot;
    if (o >= vtSize) return 0;
    const off = u16(vt + o);
    return off === 0 ? 0 : pos + off;
  };
}
const deref = (p) => p + u32(p);
const str = (p) => (p === 0 ? null : buf.toString('utf8', deref(p) + 4, deref(p) + 4 + u32(deref(p))));
const vec = (p) => {
  if (p === 0) return [];
  const v = deref(p);
  return Array.from({ length: u32(v) }, (_, i) => table(deref(v + 4 + 4 * i)));
};
const num = (p, read, dflt) => (p === 0 ? dflt : read(p));
const bool = (p) => num(p, u8, 0) !== 0;

const root = table(deref(0));
// Schema: objects 0, enums 1, file_ident 2, root_table 4.
const objects = vec(root(0));
const enums = vec(root(1));
const shortName = (full) => full.slice(full.lastIndexOf('.') + 1);
const namespaceOf = (full) => full.slice(0, full.lastIndexOf('.') + 1);
const typeOf = (p) => {
  // Type: base_type 0, element 1, index 2 (default -1).
  const t = table(deref(p));
  return { base: num(t(0), u8, 0), element: num(t(1), u8, 0), index: num(t(2), (q) => buf.readInt32LE(q), -1) };
};

const pool = new Map();
const out = [];
const byte = (b) => out.push(b & 0xff);
const varint = (value) => {
  let v = BigInt(value);
  if (v < 0n) throw new Error(`negative varint ${value}`);
  do {
    const low = Number(v & 0x7fn);
    v >>= 7n;
    byte(v === 0n ? low : low | 0x80);
  } while (v !== 0n);
};
const svarint = (value) => {
  const v = BigInt.asIntN(64, BigInt(value));
  varint(BigInt.asUintN(64, (v << 1n) ^ (v >> 63n)));
};
const s = (text) => {
  if (!pool.has(text)) pool.set(text, pool.size);
  varint(pool.get(text));
};

const fileIdent = str(root(2)) ?? '';
s(fileIdent);
const rootName = root(4) === 0 ? null : str(table(deref(root(4)))(0));
const rootIndex = objects.findIndex((o) => str(o(0)) === rootName);
varint(rootName === null || rootIndex < 0 ? 0 : rootIndex + 1);

// Enum: name 0, values 1, is_union 2. EnumVal: name 0, value 1, union_type 3.
varint(enums.length);
for (const e of enums) {
  s(shortName(str(e(0))));
  const isUnion = bool(e(2));
  byte(isUnion ? 1 : 0);
  const values = vec(e(1));
  varint(values.length);
  for (const v of values) {
    svarint(num(v(1), (p) => buf.readBigInt64LE(p), 0n));
    s(str(v(0)));
    if (!isUnion) continue;
    const type = v(3) === 0 ? null : typeOf(v(3));
    varint(type !== null && type.base === 15 /* Obj */ ? type.index + 1 : 0);
  }
}

// Object: name 0, fields 1, is_struct 2, bytesize 4. Field: name 0, type 1,
// id 2, offset 3, default_integer 4, default_real 5, deprecated 6,
// attributes 9, optional 11. KeyValue: key 0, value 1.
varint(objects.length);
for (const o of objects) {
  const full = str(o(0));
  s(namespaceOf(full));
  s(shortName(full));
  const isStruct = bool(o(2));
  byte(isStruct ? 1 : 0);
  varint(Math.max(0, num(o(4), i32, 0)));
  const fields = vec(o(1));
  const byId = [];
  for (const f of fields) byId[num(f(2), u16, 0)] = f;
  if (byId.length !== fields.length || byId.includes(undefined)) throw new Error(`${full}: field ids are not dense`);
  varint(fields.length);
  for (const f of byId) {
    const type = typeOf(f(1));
    const defaultInteger = num(f(4), (p) => buf.readBigInt64LE(p), 0n);
    const defaultReal = num(f(5), (p) => buf.readDoubleLE(p), 0);
    const offset = isStruct ? num(f(3), u16, 0) : 0;
    let forceAlign = 0;
    let onlyIn = null;
    for (const kv of vec(f(9))) {
      const key = str(kv(0));
      if (key === 'force_align') forceAlign = Number.parseInt(str(kv(1)), 10);
      if (key === 'only_in' && kv(1) !== 0) onlyIn = str(kv(1));
    }
    let flags = 0;
    if (type.element !== 0) flags |= 1;
    if (type.index !== -1) flags |= 2;
    if (defaultInteger !== 0n) flags |= 4;
    if (!Object.is(defaultReal, 0)) flags |= 8;
    if (offset !== 0) flags |= 16;
    if (forceAlign !== 0) flags |= 32;
    if (onlyIn !== null) flags |= 64;
    s(str(f(0)));
    byte(flags);
    byte(type.base | (bool(f(6)) ? 0x40 : 0) | (bool(f(11)) ? 0x80 : 0));
    if (flags & 1) byte(type.element);
    if (flags & 2) svarint(type.index);
    if (flags & 4) svarint(defaultInteger);
    if (flags & 8) {
      const d = Buffer.alloc(8);
      d.writeDoubleLE(defaultReal);
      out.push(...d);
    }
    if (flags & 16) varint(offset);
    if (flags & 32) varint(forceAlign);
    if (flags & 64) s(onlyIn);
  }
}

const head = [];
const headVarint = (value) => {
  let v = value;
  do {
    head.push((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
    v = Math.floor(v / 128);
  } while (v !== 0);
};
headVarint(pool.size);
for (const text of pool.keys()) {
  const bytes = Buffer.from(text, 'utf8');
  headVarint(bytes.length);
  head.push(...bytes);
}
writeFileSync(output, Buffer.from([...head, ...out]));
