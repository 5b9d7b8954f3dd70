// diff: two .pte files (with their .ptd files) or two .ptd files compared by
// meaning. Programs are compared in upstream's deserialized shape, where
// nothing of the layout is left (segments, offsets and padding are gone,
// constants sit in constant_buffer, named data in the store), so a repack
// with other alignments compares equal; tensor and blob bytes are compared
// by SHA-256, streamed from the files (nothing is loaded whole): every
// distinct byte range is hashed once and every input read once, front to
// back (the core plans the ranges: src/ops/diff_ranges.h; hashOnce runs the
// plan). Values are compared by their bits (-0 is not 0). Layout (header
// fields, alignment, segments, sizes) is reported separately.
import { EtpackError, invalidArgument } from './errors.mjs';
import { Artifact } from './artifact.mjs';
import { entryOf } from './sources.mjs';
import { corePtdKeys, namedDataOf, programTensors } from './program-tensors.mjs';
import { asArtifact, sliceArtifact } from './artifact-slices.mjs';
import { hashOnce, pacer } from './range-hash.mjs';
import { weightsCall } from './safetensors.mjs';
import { SCALAR_TYPES } from './generated/scalar-types.mjs';
import { DataLocation } from './generated/schema-enums.mjs';
import { check, checkOptions } from './options.mjs';

// diff's options once the public wrapper has taken `signal` out.
const DIFF_OPTIONS = { dataA: check.any, dataB: check.any };

const MAX_FIELD_CHANGES = 200;
// The runtime's dtype names by code, from the generated table (the core's).
const DTYPES = new Map(Object.values(SCALAR_TYPES).map((t) => [t.code, t.name]));
const dtypeName = (t) => DTYPES.get(t) ?? `ScalarType ${t}`;

// Stable text of a canonical value: BigInt kept exact, numbers by their
// bits where JSON would blur them (-0 as "-0", NaN and ±Infinity by name;
// JSON.stringify writes 0 and null).
const number = (x) => (Object.is(x, -0) ? '-0' : Number.isFinite(x) ? x : `${x}`);
const text = (v) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? `${x}n` : typeof x === 'number' ? number(x) : x));

export function createDiffApi(et) {
  const { sources } = et._internal;
  const createHasher = () => sources.platform.createHasher(sources.module);
  const open = (value) => (typeof value === 'string' ? et.openFile(value) : value);
  const dataList = (data, what) => {
    if (data === undefined || data === null) return [];
    if (Array.isArray(data)) return data.map((d, i) => [typeof d === 'string' ? d : d?.path ?? `${what}[${i}]`, d]);
    if (typeof data === 'object') return Object.entries(data);
    throw invalidArgument(`${what} must be an array or an object of .ptd files`);
  };

  // Collects what to hash: each call records the artifact and the record
  // {sha256, size} whose sha256 is filled in by run() (one pass per input).
  function hashes() {
    const wanted = [];
    return {
      want(artifact) {
        const record = { sha256: null, size: artifact.size };
        wanted.push([record, artifact]);
        return record;
      },
      wanted,
    };
  }
  const planRanges = (ranges, size) => weightsCall(et, 'range_plan', () => ({ size, ranges })).reply;
  async function run(collectors, pairs, signal) {
    const list = collectors.flatMap((c) => c.wanted);
    const { digestOf, same } = await hashOnce(list.map(([, a]) => a), pairs, planRanges, createHasher, { signal, what: 'diff' });
    for (const [record, artifact] of list) record.sha256 = digestOf(artifact);
    return same;
  }

  // The program with every byte run replaced by its hash and size; the bytes
  // of constant_buffer entries cut to what their tensors use (the rest is
  // alignment padding: layout).
  function canonicalProgram(program, tensors, hash) {
    const used = new Map();
    for (const t of tensors) {
      if (t.kind === 'constant' && t.nbytes !== null) used.set(t.bufferIndex, Math.max(used.get(t.bufferIndex) ?? 0, t.nbytes));
    }
    const walk = (value, path) => {
      // Bytes inline in the flatbuffer (delegate blobs, compile specs) hash
      // like the same bytes in a segment: where they sit is layout.
      const v = value instanceof Uint8Array ? asArtifact(value) : value;
      if (v instanceof Artifact) {
        const m = /^constant_buffer\[(\d+)\]\.storage$/.exec(path);
        const size = m && used.has(Number(m[1])) ? Math.min(used.get(Number(m[1])), v.size) : v.size;
        return { bytes: hash.want(size === v.size ? v : sliceArtifact(v, size)) };
      }
      if (Array.isArray(v)) {
        const out = [];
        for (let i = 0; i < v.length; ++i) out.push(walk(v[i], `${path}[${i}]`));
        return out;
      }
      if (v !== null && typeof v === 'object') {
        const out = Object.create(null);
        for (const k of Object.keys(v)) out[k] = walk(v[k], path ? `${path}.${k}` : k);
        return out;
      }
      return v;
    };
    return walk(program, '');
  }

  function pteFacts(source, summary, data, what) {
    const { program, namedData, mutableData } = et.deserializePteBinary(source);
    const hash = hashes();
    const opened = dataList(data, what).map(([name, value]) => [name, open(value)]);
    // Keys as the files hold them (corePtdKeys), matched to the program's
    // names as it holds them (each tensor's fileName).
    const files = opened.map(([name, value]) => ({ name, data: new et.FlatTensorSerializer().deserialize(value), keys: corePtdKeys(et, value) }));
    const external = namedDataOf(files).map;
    const tensors = new Map();
    const list = programTensors(et, source, program);
    for (const t of list) {
      const key = t.fileName ?? t.path;
      if (tensors.has(key)) continue;
      let bytes = t.data;
      if (t.kind === 'external') bytes = external.get(t.fileName)?.data ?? null;
      if (t.kind === 'mutable') bytes = asArtifact(mutableData?.[t.bufferIndex]);
      if (bytes && t.nbytes !== null && bytes.size > t.nbytes) bytes = sliceArtifact(bytes, t.nbytes);
      const record = { kind: t.kind, dtype: dtypeName(t.scalarType), shape: t.sizes, size: t.nbytes, sha256: null };
      if (bytes) hash.wanted.push([record, bytes]);
      tensors.set(key, record);
    }
    const named = new Map();
    for (const [key, e] of Object.entries(namedData?.pteData ?? {})) {
      named.set(key, Object.assign(hash.want(asArtifact(namedData.buffers[e.bufferIndex])), { tensorLayout: e.tensorLayout ?? null }));
    }
    const externalData = new Map();
    for (const [key, e] of external) externalData.set(key, Object.assign(hash.want(e.data), { tensorLayout: e.tensorLayout, file: e.file }));
    return {
      summary, tensors, named, externalData, dataGiven: files.length > 0, hash,
      canonical: canonicalProgram(program, list, hash),
      entries: [entryOf(source, what), ...opened.map(([name, v]) => entryOf(v, name))],
    };
  }

  async function ptdFacts(source, summary, what, pace) {
    const data = new et.FlatTensorSerializer().deserialize(source);
    await pace();
    const hash = hashes();
    const named = new Map();
    // Keys as the file holds them (a lone surrogate stays one: \ud800 in JSON).
    for (const [key, segment, tensorLayout] of corePtdKeys(et, source)) {
      named.set(key, Object.assign(hash.want(asArtifact(data.buffers[segment])), { tensorLayout }));
    }
    return { summary, named, hash, entries: [entryOf(source, what)] };
  }

  // Changes between two Maps of records: added, removed, changed (with the
  // fields that differ). `ignore`: fields not compared (unknown on a side).
  function mapChanges(a, b, fields) {
    const added = [...b.keys()].filter((k) => !a.has(k)).map((k) => ({ name: k, ...b.get(k) }));
    const removed = [...a.keys()].filter((k) => !b.has(k)).map((k) => ({ name: k, ...a.get(k) }));
    const changed = [];
    for (const [k, ra] of a) {
      const rb = b.get(k);
      if (!rb) continue;
      const differ = fields.filter((f) => {
        if (f === 'sha256' && (ra.sha256 === null || rb.sha256 === null)) return false;
        return text(ra[f]) !== text(rb[f]);
      });
      if (differ.length) changed.push({ name: k, fields: differ, a: ra, b: rb });
    }
    return { added, removed, changed };
  }

  function deepDiff(a, b, path, out) {
    if (out.length >= MAX_FIELD_CHANGES) return;
    if (text(a) === text(b)) return;
    const bothArrays = Array.isArray(a) && Array.isArray(b);
    const bothObjects = a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b);
    if (bothArrays) {
      if (a.length !== b.length) out.push({ path: `${path}.length`, a: a.length, b: b.length });
      for (let i = 0; i < Math.min(a.length, b.length); ++i) deepDiff(a[i], b[i], `${path}[${i}]`, out);
    } else if (bothObjects && !('bytes' in a)) {
      for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) deepDiff(a[k], b[k], path ? `${path}.${k}` : k, out);
    } else {
      out.push({ path, a, b });
    }
  }

  function methodChanges(fa, fb) {
    const byName = (f) => new Map(f.summary.methods.map((m, i) => [m.name ?? `#${i}`, { m, plan: f.canonical.execution_plan[i] }]));
    const ma = byName(fa);
    const mb = byName(fb);
    const io = (list) => list.map((v) => ({ type: v.type, dtype: v.dtype, shape: v.shape }));
    const ops = (m) => Object.fromEntries(m.operators.map((o) => [o.overload ? `${o.name}.${o.overload}` : o.name, Number(o.count)]));
    const delegates = (plan, canonical) => (plan.delegates ?? []).map((d) => ({
      id: d.id,
      compileSpecs: (d.compile_specs ?? []).map((s) => [s.key, s.value?.bytes?.sha256 ?? s.value]),
      blob: Number(d.processed?.location) === DataLocation.INLINE ? canonical.backend_delegate_data?.[Number(d.processed.index)]?.data ?? null : null,
    }));
    const changed = [];
    for (const [name, { m: a, plan: pa }] of ma) {
      const other = mb.get(name);
      if (!other) continue;
      const { m: b, plan: pb } = other;
      const fields = [];
      const cmp = (field, va, vb) => {
        if (text(va) !== text(vb)) fields.push({ field, a: va, b: vb });
      };
      cmp('inputs', io(a.inputs), io(b.inputs));
      cmp('outputs', io(a.outputs), io(b.outputs));
      cmp('operators', ops(a), ops(b));
      cmp('instructionCount', Number(a.instructionCount), Number(b.instructionCount));
      cmp('valueCount', Number(a.valueCount), Number(b.valueCount));
      cmp('delegates', delegates(pa, fa.canonical), delegates(pb, fb.canonical));
      if (fields.length) changed.push({ name, changes: fields });
    }
    return {
      added: [...mb.keys()].filter((k) => !ma.has(k)),
      removed: [...ma.keys()].filter((k) => !mb.has(k)),
      changed,
    };
  }

  function layoutChanges(sa, sb) {
    const out = [];
    const cmp = (field, va, vb) => {
      if (text(va) !== text(vb)) out.push({ field, a: va ?? null, b: vb ?? null });  // absent: null (JSON keeps it)
    };
    cmp('fileSize', sa.fileSize, sb.fileSize);
    cmp('segmentAlignment', sa.segmentAlignment, sb.segmentAlignment);
    for (const k of new Set([...Object.keys(sa.header ?? {}), ...Object.keys(sb.header ?? {})])) cmp(`header.${k}`, sa.header?.[k], sb.header?.[k]);
    cmp('segments.count', sa.segments?.length, sb.segments?.length);
    const segs = (s) => (s.segments ?? []).map((g) => ({ offset: g.offset, size: g.size }));
    cmp('segments', segs(sa), segs(sb));
    if (sa.constants || sb.constants) cmp('constants.storage', sa.constants?.storage, sb.constants?.storage);
    return out;
  }

  // Pairs of inputs read in lockstep (a with b, a's i-th .ptd with b's):
  // `identical` is every pair's bytes equal, learnt during the hashing pass.
  const pairsOf = (fa, fb) => (fa.entries.length === fb.entries.length ? fa.entries.map((e, i) => [e, fb.entries[i]]) : []);
  const allSame = (fa, fb, same) => fa.entries.length === fb.entries.length && same.every(Boolean);

  // The core lists each NaN's bits (src/ops/diff_values.h) so that payloads
  // are compared too.
  function nanChanges(sa, sb, out) {
    const nans = (source) => new Map(weightsCall(et, 'nan_values', (heap, scope, fileRequest) => ({
      pte: fileRequest(source, 'pte', scope, heap, 'pte'),
    })).reply.nans);
    const [na, nb] = [nans(sa), nans(sb)];
    // A non-canonical NaN reaches JS as { nanBits } (marshal/nan-bits.mjs):
    // the walk over the programs has seen it already.
    const seen = new Set(out.map((f) => f.path));
    for (const [path, bits] of na) {
      if (out.length >= MAX_FIELD_CHANGES) return;
      if (seen.has(path)) continue;
      if (nb.has(path) && nb.get(path) !== bits) out.push({ path, a: `NaN (bits ${bits})`, b: `NaN (bits ${nb.get(path)})` });
    }
  }

  const count = (c) => ({ added: c.added.length, removed: c.removed.length, changed: c.changed.length });
  const bytesOf = (c) => [...c.added, ...c.changed.map((x) => x.b)].reduce((s, r) => s + (Number(r.size) || 0), 0);

  const unreferenced = (c, fa, fb) => {
    const free = (r) => !fa.tensors.has(r.name) && !fb.tensors.has(r.name);
    return { added: c.added.filter(free), changed: c.changed.filter(free), removed: [] };
  };

  // `signal`: from the public wrapper (open-models.mjs), which takes it out
  // of the options; the pass over the bytes checks it between chunks.
  async function diff(a, b, options = {}, signal = null) {
    options = checkOptions(options, DIFF_OPTIONS, 'options');
    // The event loop gets a turn between the synchronous steps (and the
    // byte pass paces itself: program-tensors.mjs hashOnce).
    const pace = pacer(signal, 'diff');
    // Each input opened once (paths in Node); inspect says what it is.
    const [sa, sb] = [open(a), open(b)];
    const ia = et.inspect(sa);
    await pace();
    const ib = et.inspect(sb);
    await pace();
    if (ia.format !== ib.format) throw new EtpackError('DIFF_KIND_MISMATCH', `cannot compare a .${ia.format} with a .${ib.format}`);
    if (ia.format === 'ptd') {
      const fa = await ptdFacts(sa, ia, 'a', pace);
      await pace();
      const fb = await ptdFacts(sb, ib, 'b', pace);
      await pace();
      const same = await run([fa.hash, fb.hash], pairsOf(fa, fb), signal);
      const namedData = mapChanges(fa.named, fb.named, ['sha256', 'size', 'tensorLayout']);
      const layout = layoutChanges(fa.summary, fb.summary);
      const equivalent = !namedData.added.length && !namedData.removed.length && !namedData.changed.length;
      return {
        kind: 'ptd', equivalent, identical: allSame(fa, fb, same),
        summary: { namedData: count(namedData), bytesChanged: bytesOf(namedData), layoutChanges: layout.length },
        namedData, layout,
      };
    }
    const fa = pteFacts(sa, ia, options?.dataA, 'dataA');
    await pace();
    const fb = pteFacts(sb, ib, options?.dataB, 'dataB');
    await pace();
    const same = await run([fa.hash, fb.hash], pairsOf(fa, fb), signal);
    const methods = methodChanges(fa, fb);
    const tensors = mapChanges(fa.tensors, fb.tensors, ['kind', 'dtype', 'shape', 'size', 'sha256']);
    const namedData = mapChanges(fa.named, fb.named, ['sha256', 'size', 'tensorLayout']);
    const externalData = mapChanges(fa.externalData, fb.externalData, ['sha256', 'size', 'tensorLayout']);
    const programFields = [];
    deepDiff(fa.canonical, fb.canonical, '', programFields);
    nanChanges(sa, sb, programFields);
    const layout = layoutChanges(fa.summary, fb.summary);
    const empty = (c) => !c.added.length && !c.removed.length && !c.changed.length;
    // With data files on one side only, external bytes are compared as far as known.
    const dataComparable = fa.dataGiven === fb.dataGiven;
    const equivalent = empty(methods) && empty(tensors) && empty(namedData) && (!dataComparable || empty(externalData)) && programFields.length === 0;
    return {
      kind: 'pte',
      equivalent,
      identical: allSame(fa, fb, same),
      summary: {
        methods: count(methods), tensors: count(tensors), namedData: count(namedData), externalData: count(externalData),
        programFields: programFields.length,
        // External tensors' bytes count once (as tensors), other .ptd entries as named data.
        bytesChanged: bytesOf(tensors) + bytesOf(namedData) + bytesOf(unreferenced(externalData, fa, fb)),
        externalDataCompared: fa.dataGiven && fb.dataGiven, layoutChanges: layout.length,
      },
      methods, tensors, namedData, externalData, programFields, layout,
    };
  }

  return { diff };
}

