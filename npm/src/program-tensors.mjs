// The tensors of a deserialized program (deserializePteBinary's upstream
// shape: constants restored into constant_buffer, named data into the store)
// and of .ptd files, as lists of named byte ranges. Shared by diff and the
// weights commands. Nothing here reads tensor bytes: data stays Artifacts
// (references to the input files) until a caller streams or hashes them.
import { Artifact } from './artifact.mjs';
import { EtpackError } from './errors.mjs';
import { SOURCE } from './sources.mjs';
import { weightsCall } from './safetensors.mjs';
import { layoutFromCore } from './marshal.mjs';
import { SCALAR_TYPES } from './generated/scalar-types.mjs';
import { TensorDataLocation } from './generated/schema-enums.mjs';

// Element sizes by ScalarType code: the table generated from the core's
// (src/model/scalar_types.def), the one dtype table of the package.
const ELEMENT_SIZE = [];
for (const t of Object.values(SCALAR_TYPES)) ELEMENT_SIZE[t.code] = t.elementSize;

// Bytes of a tensor (as a Number; null when the type is unknown or a size is
// not a safe non-negative integer).
export function tensorBytes(scalarType, sizes) {
  const element = ELEMENT_SIZE[Number(scalarType)];
  if (element === undefined || !Array.isArray(sizes)) return null;
  let total = BigInt(element);
  for (const s of sizes) {
    const n = BigInt(s);
    if (n < 0n) return null;
    total *= n;
  }
  return total <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(total) : null;
}

// The first `size` bytes of an artifact as an artifact of references.
export function sliceArtifact(artifact, size) {
  if (size === artifact.size) return artifact;
  const pieces = [];
  let left = size;
  for (const p of artifact.pieces) {
    if (left === 0) break;
    const length = p.bytes ? p.bytes.byteLength : (p.zeros ?? p.length);
    const take = Math.min(length, left);
    if (p.bytes) pieces.push({ bytes: p.bytes.subarray(0, take) });
    else if (p.zeros !== undefined) pieces.push({ zeros: take });
    else pieces.push({ entry: p.entry, offset: p.offset, length: take });
    left -= take;
  }
  return new Artifact(pieces, size);
}

// A one-range Artifact as a source the serializers take by reference whose
// reads go straight to the underlying file (an Artifact passed as a source
// is read through a staging array per chunk: twice the allocations and
// copies, which cost more than the write itself for large weights).
export function asRangeSource(artifact) {
  const p = artifact.pieces.length === 1 ? artifact.pieces[0] : null;
  if (!p?.entry) return artifact;
  const { entry, offset: base, length } = p;
  const e = {
    size: length,
    view: (offset, n) => entry.view(base + offset, n),
    read: (offset, n) => entry.read(base + offset, n),
  };
  if (entry.copyTo) e.copyTo = (dst, at, offset, n) => entry.copyTo(dst, at, base + offset, n);
  if (entry.readInto) e.readInto = (dst, at, offset, n) => entry.readInto(dst, at, base + offset, n);
  // A file's path: writers then read it synchronously into a reused buffer.
  if (entry.path !== undefined) e.path = entry.path;
  if (entry.part) e.part = (offset, n) => entry.part(base + offset, n);
  return { size: length, [SOURCE]: () => e };
}

// Deserialized bytes are Artifacts (file inputs) or Uint8Array views (byte
// inputs): both as Artifacts (a view is referenced, not copied).
export function asArtifact(value) {
  if (value instanceof Uint8Array) return new Artifact([{ bytes: value }], value.byteLength);
  return value instanceof Artifact ? value : null;
}

const num = (v) => (typeof v === 'bigint' ? Number(v) : v);
const ints = (list) => (Array.isArray(list) ? list.map(num) : list);

// Every tensor of every plan that carries data or a name: constants (with
// their constant_buffer bytes, padding cut off), external tensors (by fqn)
// and mutable buffers. Each: { kind, name (fqn or null), path, scalarType,
// sizes, dimOrder, nbytes, data (Artifact or null), bufferIndex }.
export function programTensors(program) {
  const out = [];
  const constants = program.constant_buffer ?? [];
  (program.execution_plan ?? []).forEach((plan, p) => {
    (plan.values ?? []).forEach((value, v) => {
      if (value?.val_type !== 'Tensor') return;
      const t = value.val;
      const info = t.extra_tensor_info ?? null;
      const index = num(t.data_buffer_idx ?? 0);
      const planned = t.allocation_info !== null && t.allocation_info !== undefined;
      const external = info !== null && num(info.location) === TensorDataLocation.EXTERNAL;
      let kind;
      if (external) kind = 'external';
      else if (index > 0) kind = planned ? 'mutable' : 'constant';
      else return;
      const sizes = ints(t.sizes ?? []);
      const nbytes = tensorBytes(t.scalar_type, sizes);
      let data = null;
      const storage = kind === 'constant' ? asArtifact(constants[index]?.storage) : null;
      if (storage) {
        data = nbytes !== null && nbytes <= storage.size ? sliceArtifact(storage, nbytes) : storage;
      }
      out.push({
        kind,
        name: info?.fully_qualified_name ?? null,
        path: `execution_plan[${p}].values[${v}]`,
        scalarType: num(t.scalar_type),
        sizes,
        dimOrder: ints(t.dim_order ?? []),
        nbytes,
        data,
        bufferIndex: index,
      });
    });
  });
  return out;
}

// path -> fully_qualified_name of every named tensor of the .pte `source`,
// read by the core from the file's bytes: a lone surrogate comes back as
// one (JSON's \udxxx escape), where the deserialized program (decoded text)
// holds U+FFFD. Names shown or written use these; lookups in .ptd maps
// decoded the same way as the program keep the program's own names.
export function coreTensorNames(et, source) {
  const { reply } = weightsCall(et, 'tensor_names', (heap, scope, fileRequest) => ({ pte: fileRequest(source, 'pte', scope, heap, 'pte') }));
  return new Map(reply.names);
}

// The tensors as the core's weights calls read them (src/bindings/
// weights_api.cpp): a null name is an unnamed constant.
export function tensorsToCore(tensors) {
  return tensors.map((t) => ({
    name: t.name, path: t.path, scalar_type: t.scalarType, sizes: t.sizes, dim_order: t.dimOrder,
    // Mutable buffers index mutable data, not constant_buffer: no weights there.
    external: t.kind === 'external', buffer: t.kind === 'constant' ? t.bufferIndex : 0,
  }));
}

// External tensors once each by name, in order of first use.
export function externalTensors(program) {
  const seen = new Map();
  for (const t of programTensors(program)) if (t.kind === 'external' && t.name !== null && !seen.has(t.name)) seen.set(t.name, t);
  return [...seen.values()];
}

// A .ptd's named-data keys as the file holds them, from the core (like
// coreTensorNames: a lone surrogate stays one and prints escaped, \ud800;
// FlatTensorSerializer.deserialize has decoded text, U+FFFD, where two such
// keys are one): [[key, segmentIndex, tensorLayout | null]], in file order.
export function corePtdKeys(et, source) {
  const { reply } = weightsCall(et, 'ptd_keys', (heap, scope, fileRequest) => ({ ptd: fileRequest(source, 'ptd', scope, heap, 'ptd') }));
  return reply.keys.map(([key, segment, layout]) => [key, segment, layoutFromCore(layout)]);
}

// Named data of deserialized .ptd files (FlatTensorSerializer.deserialize
// results; with `keys`, corePtdKeys of the file, named by those instead):
// Map key -> { data, tensorLayout, file }. A key in two files: the first
// wins, as the runtime's merged data map would refuse; reported by callers
// that care through `duplicates`.
export function namedDataOf(files) {
  const map = new Map();
  const duplicates = [];
  for (const { name, data, keys } of files) {
    const entries = keys ?? Object.entries(data.namedData).map(([key, e]) => [key, e.bufferIndex, e.tensorLayout ?? null]);
    for (const [key, bufferIndex, tensorLayout] of entries) {
      if (map.has(key)) {
        duplicates.push(key);
        continue;
      }
      map.set(key, { data: asArtifact(data.buffers[bufferIndex]), tensorLayout, file: name });
    }
  }
  return { map, duplicates };
}

// diff's hashing: every byte range asked of an input file hashed once, the
// file read once, front to back. `jobs`: [{entry, artifact}] where artifact
// is a single range of `entry` (others are hashed alone, once per Artifact).
// The core plans it (src/ops/diff_ranges.h: ranges sharing a start share a
// running hash, copied at each end); `pairs` of entries of equal size are
// read in lockstep and compared as they pass, which answers `identical`
// without a second read. Returns { digestOf(artifact) -> hex, same: [bool
// per pair] }.
const PASS_CHUNK = 8 << 20;

export function singleRange(artifact) {
  if (artifact.pieces.length !== 1 || !artifact.pieces[0].entry) return null;
  const p = artifact.pieces[0];
  return { entry: p.entry, offset: p.offset, length: p.length };
}

export async function hashOnce(artifacts, pairs, planRanges, createHasher) {
  const digests = new Map();  // artifact -> hex
  const byEntry = new Map();  // entry -> [artifact]
  for (const a of artifacts) {
    if (digests.has(a)) continue;
    const r = singleRange(a);
    if (!r) {
      digests.set(a, await hashArtifact(a, createHasher));
      continue;
    }
    if (!byEntry.has(r.entry)) byEntry.set(r.entry, []);
    byEntry.get(r.entry).push(a);
    digests.set(a, null);
  }
  const runners = new Map();
  for (const [entry, list] of byEntry) {
    const ranges = list.map((a) => [a.pieces[0].offset, a.pieces[0].length]);
    const runner = new StreamRunner(planRanges(ranges, entry.size), createHasher);
    runners.set(entry, { runner, list });
  }
  const same = [];
  const done = new Set();
  for (const [ea, eb] of pairs) {
    if (ea.size !== eb.size) {
      same.push(false);
      continue;
    }
    let equal = true;
    const [ra, rb] = [runners.get(ea)?.runner, runners.get(eb)?.runner];
    for await (const [at, x, y] of lockstep(ea, eb, 0, ea.size)) {
      if (equal && !bytesEqual(x, y)) equal = false;
      ra?.feed(at, x);
      if (eb !== ea) rb?.feed(at, y);
    }
    done.add(ea).add(eb);
    same.push(equal);
  }
  for (const [entry, { runner }] of runners) {
    if (done.has(entry)) continue;
    // Only the spans some range covers are read.
    for (const [lo, hi] of runner.spans()) {
      for await (const [at, x] of lockstep(entry, entry, lo, hi)) runner.feed(at, x);
    }
  }
  for (const { runner, list } of runners.values()) {
    runner.finish();
    list.forEach((a, i) => digests.set(a, runner.digestOfRange(i)));
  }
  return { digestOf: (a) => digests.get(a), same };
}

async function readRange(entry, offset, length) {
  return entry.view(offset, length) ?? entry.read(offset, length);
}

// [offset, chunk of a, chunk of b] over [lo, hi) of two entries (one when
// a === b). Files with synchronous reads (Node) are read into two reused
// buffers: a fresh 8 MiB array per chunk cost more in page faults than the
// hashing (a chunk is used only until the next one is asked for). Other
// entries (URLs, Blobs) are read asynchronously, the next chunks' reads
// started before the current ones are handed out.
async function* lockstep(a, b, lo, hi) {
  if (a.path !== undefined && b.path !== undefined && a.copyTo && b.copyTo) {
    const x = new Uint8Array(Math.min(PASS_CHUNK, hi - lo));
    const y = b === a ? x : new Uint8Array(x.byteLength);
    for (let at = lo; at < hi; at += PASS_CHUNK) {
      const n = Math.min(PASS_CHUNK, hi - at);
      a.copyTo(x, 0, at, n);
      if (b !== a) b.copyTo(y, 0, at, n);
      yield [at, x.subarray(0, n), y.subarray(0, n)];
    }
    return;
  }
  const fetch = (at) => {
    const n = Math.min(PASS_CHUNK, hi - at);
    const x = readRange(a, at, n);
    return Promise.all([x, b === a ? x : readRange(b, at, n)]);
  };
  let next = lo < hi ? fetch(lo) : null;
  for (let at = lo; at < hi; at += PASS_CHUNK) {
    const [x, y] = await next;
    next = at + PASS_CHUNK < hi ? fetch(at + PASS_CHUNK) : null;
    yield [at, x, y];
  }
}

function bytesEqual(x, y) {
  if (x.byteLength !== y.byteLength) return false;
  // Node's Buffer compares with memcmp; reached through globalThis so that a
  // bundler (Parcel) sees no free `Buffer` to polyfill in browser builds.
  const NodeBuffer = globalThis.Buffer;
  if (NodeBuffer) return NodeBuffer.from(x.buffer, x.byteOffset, x.byteLength).equals(NodeBuffer.from(y.buffer, y.byteOffset, y.byteLength));
  for (let i = 0; i < x.byteLength; ++i) if (x[i] !== y[i]) return false;
  return true;
}

// Runs the core's plan ({count, range_of, streams: [[start, [[end,
// distinct], ...]], ...]}) over a file fed front to back.
class StreamRunner {
  constructor(plan, createHasher) {
    this.plan = plan;
    this.createHasher = createHasher;
    this.streams = plan.streams.map(([start, ends]) => ({ start, ends, k: 0, at: start, hasher: null }));
    this.digests = new Array(plan.count).fill(null);
    this.next = 0;
    this.active = [];
  }
  // The maximal spans [lo, hi) that streams cover, in file order.
  spans() {
    const out = [];
    for (const s of this.streams) {
      const hi = s.ends[s.ends.length - 1][0];
      if (out.length && s.start <= out[out.length - 1][1]) out[out.length - 1][1] = Math.max(out[out.length - 1][1], hi);
      else out.push([s.start, hi]);
    }
    return out;
  }
  feed(pos, chunk) {
    const end = pos + chunk.byteLength;
    while (this.next < this.streams.length && this.streams[this.next].start <= end) {
      const s = this.streams[this.next++];
      s.hasher = this.createHasher();
      this.active.push(s);
    }
    for (const s of this.active) {
      while (s.k < s.ends.length) {
        const [stop, d] = s.ends[s.k];
        const hi = Math.min(stop, end);
        if (hi > s.at) {
          s.hasher.update(chunk.subarray(s.at - pos, hi - pos));
          s.at = hi;
        }
        if (stop > end) break;
        // A copy of the running state unless this is the stream's last end.
        this.digests[d] = s.k === s.ends.length - 1 ? s.hasher.digest() : s.hasher.copy().digest();
        s.k += 1;
      }
    }
    this.active = this.active.filter((s) => s.k < s.ends.length);
  }
  // Ranges no feed reached can only be empty ones at the end of the file.
  finish() {
    while (this.next < this.streams.length) {
      const s = this.streams[this.next++];
      s.hasher = this.createHasher();
      this.active.push(s);
    }
    for (const s of this.active) {
      for (; s.k < s.ends.length; ++s.k) {
        const [stop, d] = s.ends[s.k];
        if (stop !== s.at) throw new EtpackError('INTERNAL', `diff: bytes [${s.at}, ${stop}) of an input were never read`);
        this.digests[d] = s.k === s.ends.length - 1 ? s.hasher.digest() : s.hasher.copy().digest();
      }
    }
    this.active = [];
  }
  digestOfRange(i) {
    return this.digests[this.plan.range_of[i]];
  }
}

// Streams an artifact through a hasher (chunks of at most 8 MiB: nothing is
// loaded whole).
export async function hashArtifact(artifact, createHasher) {
  const hasher = createHasher();
  for await (const chunk of artifact.chunks()) hasher.update(chunk);
  return hasher.digest();
}
