// New weights without re-exporting: a program's external tensors written into
// a .ptd from safetensors checkpoints (ptdFromWeights), its constants
// replaced in the .pte (pteWithWeights), and its named tensors written out as
// safetensors (exportWeights). The core checks the checkpoints' headers,
// matches tensors by name, dtype, shape and dim order, and lays out the
// safetensors head (src/ops/weights_match.h, src/bindings/weights_api.cpp);
// this glue reads the header bytes and builds the outputs. Tensor bytes are
// exchanged in row-major order. Where a tensor's dim_order is the identity
// they are never loaded: outputs are Artifacts whose pieces reference the
// input files, read once while the output is written. A non-trivial
// dim_order is permuted by the core (permutedEntry: the only copies).
import { EtpackError, invalidArgument } from './errors.mjs';
import { Artifact } from './artifact.mjs';
import { entryOf } from './sources.mjs';
import { namedDataOf, programTensors, tensorsToCore } from './program-tensors.mjs';
import { asRangeSource, sliceArtifact } from './artifact-slices.mjs';
import { hashArtifact } from './range-hash.mjs';
import { MAX_HEADER_BYTES, readHeaderBytes, weightsCall } from './safetensors.mjs';
import { OUTPUT, check } from './options.mjs';
import { outputOptions } from './outputs.mjs';
import { guardDelegateKeys } from './ops/delegate.mjs';

const EXPORT_OPTIONS = { ...OUTPUT, include: check.any };

const OUTPUTS = ['bytes', 'blob', 'artifact'];

function outputForm(options, what) {
  const output = options?.output ?? 'bytes';
  if (!OUTPUTS.includes(output)) throw invalidArgument(`${what}.output must be one of ${OUTPUTS.join(', ')}, got ${String(output)}`);
  return output;
}

function deliver(artifact, output) {
  if (output === 'artifact') return artifact;
  if (output === 'blob') return artifact.toBlob();
  return artifact.toBytes();
}

const nameOf = (value, fallback) => (typeof value === 'string' ? value : value?.path ?? value?.url ?? value?.name ?? value?.blob?.name ?? fallback);
const baseName = (path) => {
  const bare = String(path).replace(/[?#].*$/, '');
  return bare.slice(Math.max(bare.lastIndexOf('/'), bare.lastIndexOf('\\')) + 1);
};
const dirOf = (path) => path.slice(0, Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);

// NOTHING_TO_EXPORT: what exportWeights (and export-weights) refuse, the
// reason in `hint`.
function nothingToExport(include, skipped, constantCount) {
  const e = new EtpackError('NOTHING_TO_EXPORT', 'no tensor to export: nothing was written');
  if (include?.length) {
    e.hint = `no exportable tensor name matches --include ${include.map((g) => `'${g}'`).join(', ')}; run without --include to export them all`;
  } else if (skipped.length) {
    e.hint = `every named tensor has a dtype safetensors cannot store (${skipped.length} skipped)`;
  } else if (constantCount() > 0) {
    e.hint = `the program's ${constantCount()} constant(s) have no names (it was exported without fully-qualified constant names) and it has no external tensors; export-weights writes tensors by name`;
  } else {
    e.hint = 'the program has no constants and no external tensors';
  }
  return e;
}

export function createWeightsApi(et) {
  const { sources } = et._internal;
  const createHasher = () => sources.platform.createHasher(sources.module);
  const open = (value) => (typeof value === 'string' ? et.openFile(value) : value);

  // One checkpoint source -> [{file, source}] safetensors files. A path
  // ending in .json is a sharded checkpoint's index (Node): its weight_map
  // names the shard files, in the index's folder, and each tensor's shard.
  async function checkpointFiles(value, i) {
    if (typeof value === 'string' && value.endsWith('.json')) {
      const index = et.openFile(value);
      if (index.size > MAX_HEADER_BYTES) {
        index.close?.();
        throw new EtpackError('SAFETENSORS_INDEX', `${value}: ${index.size} bytes is too large for an index (at most ${MAX_HEADER_BYTES})`);
      }
      // Parsed by the core (src/read/safetensors_index.h): duplicate keys,
      // bad UTF-8 and shard names outside the folder are SAFETENSORS_INDEX.
      let shards;
      try {
        const text = await entryOf(index, value).read(0, index.size);
        shards = weightsCall(et, 'index', (heap) => ({ file: value, text: heap.put(text) })).reply.shards;
      } finally {
        index.close?.();
      }
      return shards.map(([shard, names]) => ({ file: dirOf(value) + shard, source: et.openFile(dirOf(value) + shard), expect: names, index: value }));
    }
    return [{ file: nameOf(value, `sources[${i}]`), source: open(value) }];
  }

  // The header bytes of every checkpoint file (each read once), with the
  // entries their tensors' bytes come from. The core parses and checks them.
  async function readCheckpoints(list) {
    const files = [];
    for (let i = 0; i < list.length; ++i) {
      for (const { file, source, expect, index } of await checkpointFiles(list[i], i)) {
        const entry = entryOf(source, file);
        files.push({ ...(await readHeaderBytes(et, entry, file)), entry, expect, index });
      }
    }
    return files;
  }

  // rename: [[from, to], ...] or {from: to}: the first rule whose `from`
  // prefixes a checkpoint name replaces that prefix (applied by the core).
  function renameRules(rename) {
    if (rename === undefined || rename === null) return [];
    const rules = Array.isArray(rename) ? rename : Object.entries(rename);
    for (const r of rules) {
      if (!Array.isArray(r) || r.length !== 2 || typeof r[0] !== 'string' || typeof r[1] !== 'string') {
        throw invalidArgument('rename must be {from: to} or [[from, to], ...] of strings');
      }
    }
    return rules;
  }

  // The core's plan: which checkpoint range fills which program tensor.
  // Every missing tensor, dtype/shape mismatch and one name at several
  // layouts is collected into one WEIGHTS_MISMATCH error (its `problems`
  // list each); nothing is produced then.
  // The core reads the program's tensors from the .pte itself; assignments
  // name them by path.
  async function plan(target, files, source, tensors, rules, carried = null) {
    const { reply } = weightsCall(et, 'match', (heap, scope, fileRequest) => ({
      target,
      rename: rules,
      // Each header is copied into the heap and dropped here: a million
      // tensors' header is tens of MB, held once (the core's names view it).
      files: files.map((f) => {
        const header = heap.put(f.header);
        f.header = null;
        return { file: f.file, size: f.size, header, expect: f.expect, index: f.index };
      }),
      pte: fileRequest(source, 'pte', scope, heap, 'pte'),
    }));
    // An external tensor the checkpoints lack is no problem when a given
    // .ptd holds it: that entry is carried.
    const problems = carried ? reply.problems.filter((p) => !(p.problem === 'missing' && carried.has(p.name))) : reply.problems;
    if (problems.length) {
      const message = problems.length === reply.problems.length ? reply.message
        : `${problems.length} tensor(s) do not fit the program:${problems.map((p) => `\n  ${p.message}`).join('')}`;
      const e = new EtpackError('WEIGHTS_MISMATCH', message);
      e.problems = problems;
      throw e;
    }
    await checkTiedWeights(reply.assigned, files);
    const byPath = new Map(tensors.map((t) => [t.path, t]));
    for (const a of reply.assigned) {
      a.tensor = byPath.get(a.path);
      if (!a.tensor) throw new EtpackError('INTERNAL', `weights: ${a.path} is not a tensor of the deserialized program`);
    }
    return reply;
  }

  // Tied weights (one constant buffer, several names) given under more than
  // one name: every value must hold the same bytes (compared a chunk at a
  // time); different bytes are WEIGHTS_MISMATCH naming both.
  async function checkTiedWeights(assigned, files) {
    const CHUNK = 1 << 24;
    const read = (file, offset, length) => {
      const entry = files[file].entry;
      return entry.view(offset, length) ?? entry.read(offset, length);
    };
    const problems = [];
    for (const a of assigned) {
      for (const other of a.same_as ?? []) {
        let equal = other.size === a.size;
        for (let at = 0; equal && at < a.size; at += CHUNK) {
          const n = Math.min(CHUNK, a.size - at);
          const [x, y] = await Promise.all([read(a.file, a.offset + at, n), read(other.file, other.offset + at, n)]);
          for (let i = 0; i < n; ++i) if (x[i] !== y[i]) { equal = false; break; }
        }
        if (!equal) {
          problems.push({ name: a.name, problem: 'tied', message: `${JSON.stringify(a.name)} and ${JSON.stringify(other.name)} share one constant buffer (tied weights) but the checkpoints give them different bytes: give one value, or equal ones` });
        }
      }
    }
    if (problems.length) {
      const e = new EtpackError('WEIGHTS_MISMATCH', `${problems.length} tensor(s) do not fit the program:${problems.map((p) => `\n  ${p.message}`).join('')}`);
      e.problems = problems;
      throw e;
    }
  }

  // The bytes of assignment `a` in the tensor's own layout: a reference to
  // the checkpoint range, or (non-trivial dim_order) its permutation.
  // Bytes of a deserialized storage (a Uint8Array view or an Artifact).
  function storageSize(storage) {
    return storage instanceof Uint8Array ? storage.byteLength : Number(storage?.size ?? 0);
  }

  function assignedData(a, files, tensor) {
    const data = new Artifact([{ entry: files[a.file].entry, offset: a.offset, length: a.size }], a.size);
    if (!a.permute) return data;
    return new Artifact([{ entry: permutedEntry(data, tensor, false), offset: 0, length: a.size }], a.size);
  }

  // An entry whose bytes are `source` permuted between row-major and the
  // tensor's dim_order by the core, computed on first read. Copies, all of
  // this tensor only: the source bytes read (1), into the heap (2), the
  // permutation (3), out of the heap (4).
  function permutedEntry(source, tensor, toRowMajor) {
    let permuted = null;
    const compute = (bytes) => weightsCall(et, 'permute', (heap) => ({
      bytes: heap.put(bytes), scalar_type: tensor.scalarType, sizes: tensor.sizes, dim_order: tensor.dimOrder, to_row_major: toRowMajor,
    })).blobs[0];
    return {
      size: source.size,
      view: () => null,
      copyTo(dst, at, offset, length) {
        permuted ??= compute(source.toBytes());
        dst.set(permuted.subarray(offset, offset + length), at);
      },
      async read(offset, length) {
        permuted ??= compute(await source.bytes());
        return permuted.subarray(offset, offset + length);
      },
    };
  }

  // The first and last 64 bytes of a one-piece artifact, as text.
  async function edgesOf(data) {
    const { entry, offset, length } = data.pieces[0];
    const n = Math.min(64, length);
    const read = async (at) => entry.view(at, n) ?? entry.read(at, n);
    const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
    return hex(await read(offset)) + hex(await read(offset + length - n));
  }

  // The entries of the program's .ptd files (options.data): key -> where its
  // bytes are, its alignment and layout. One key in two files is
  // DUPLICATE_KEY (the output holds one entry per key).
  function dataEntries(data) {
    const list = data === undefined || data === null ? [] : Array.isArray(data) ? data.map((d, i) => [nameOf(d, `data[${i}]`), d])
      : typeof data === 'object' ? Object.entries(data) : null;
    if (list === null) throw invalidArgument("options.data must be an array of .ptd files or a record {'model.ptd': file, ...}");
    const entries = new Map();
    list.forEach(([name, value], f) => {
      const ptd = new et.FlatTensorSerializer().deserialize(open(value));
      for (const [key, e] of Object.entries(ptd.namedData)) {
        if (entries.has(key)) throw new EtpackError('DUPLICATE_KEY', `'${key}' is in both ${baseName(entries.get(key).file)} and ${baseName(name)}: the .ptd written holds one entry per key`);
        entries.set(key, { file: name, fileIndex: f, bufferIndex: e.bufferIndex, buffer: ptd.buffers[e.bufferIndex], alignment: e.alignment, tensorLayout: e.tensorLayout ?? null });
      }
    });
    return entries;
  }

  // The .ptd holding the program's external tensors, bytes from the
  // checkpoints (in the tensors' dim orders). With options.data (the
  // program's .ptd files) every entry the checkpoints do not replace is
  // carried, bytes untouched (`carried`), unless options.drop lists it.
  async function ptdFromWeights(pte, checkpoints, options = {}) {
    const list = Array.isArray(checkpoints) ? checkpoints : [checkpoints];
    if (list.length === 0) throw invalidArgument('ptdFromWeights needs at least one safetensors source');
    const output = outputForm(options, 'options');
    const segmentAlignment = options?.segmentAlignment ?? 128;
    const tag = options?.tag ?? null;
    const rules = renameRules(options?.rename);
    const source = open(pte);
    const { program } = et.deserializePteBinary(source);
    const tensors = programTensors(et, source, program);
    if (!tensors.some((t) => t.kind === 'external' && t.name !== null)) {
      throw new EtpackError('NO_EXTERNAL_TENSORS', 'the program has no external tensors: it needs no .ptd');
    }
    const drop = options?.drop === undefined || options?.drop === null ? [] : [].concat(options.drop);
    if (!drop.every((k) => typeof k === 'string')) throw invalidArgument('options.drop must be a key or a list of keys');
    const given = dataEntries(options?.data);
    const files = await readCheckpoints(list);
    const { assigned, written, unused } = await plan('external', files, source, tensors, rules, new Set(given.keys()));
    // Equal bytes share one segment (as the serializer's own dedup would
    // when the program was exported). A tensor is hashed only when another
    // has the same size and the same first and last 64 bytes: a checkpoint
    // of distinct tensors is read once, while the output is written.
    const datas = assigned.map((a) => assignedData(a, files, a.tensor));
    const fingerprints = [];
    for (const data of datas) fingerprints.push(`${data.size}:${await edgesOf(data)}`);
    const alike = new Map();
    for (const f of fingerprints) alike.set(f, (alike.get(f) ?? 0) + 1);
    const buffers = [];
    const bufferOf = new Map();
    const namedData = Object.create(null);
    for (let i = 0; i < assigned.length; ++i) {
      const t = assigned[i].tensor;
      const data = datas[i];
      let key = null;
      if (alike.get(fingerprints[i]) > 1) key = `${data.size}:${await hashArtifact(data, createHasher)}`;
      let index = key !== null ? bufferOf.get(key) : undefined;
      if (index === undefined) {
        index = buffers.push(asRangeSource(data)) - 1;
        if (key !== null) bufferOf.set(key, index);
      }
      namedData[t.name] = { bufferIndex: index, alignment: 1, tensorLayout: { scalarType: t.scalarType, sizes: t.sizes, dimOrder: t.dimOrder } };
    }
    // Every other entry of the given files: its bytes (a reference to the
    // input), alignment and layout as they were; entries sharing a buffer
    // there share one here.
    const replaced = new Set(written);
    const unknownDrops = drop.filter((k) => !given.has(k) || replaced.has(k));
    if (unknownDrops.length) {
      throw invalidArgument(`options.drop names ${unknownDrops.map((k) => `'${k}'`).join(', ')}, which ${unknownDrops.length === 1 ? 'is' : 'are'} no entry carried from the given .ptd files`);
    }
    const dropped = new Set(drop);
    const carried = [];
    const sharedBuffer = new Map();
    for (const [key, e] of given) {
      if (replaced.has(key) || dropped.has(key)) continue;
      const at = `${e.fileIndex}:${e.bufferIndex}`;
      let index = sharedBuffer.get(at);
      if (index === undefined) sharedBuffer.set(at, index = buffers.push(e.buffer) - 1);
      namedData[key] = { bufferIndex: index, alignment: e.alignment, ...(e.tensorLayout ? { tensorLayout: e.tensorLayout } : {}) };
      carried.push({ key, file: e.file });
    }
    // A delegate's named keys must stay in the .pte or this .ptd (a dropped
    // or never given entry would fail its backend's init()).
    guardDelegateKeys(et, source, Object.keys(namedData), 'the .pte\'s named_data and the .ptd written', true);
    const ptd = new et.FlatTensorSerializer({ segmentAlignment }).serialize({ buffers, namedData }, { output });
    return { ptd, tag, written, unused, carried, dropped: drop.slice() };
  }

  // The .pte with its named constants' bytes taken from the checkpoints (by
  // fully-qualified name, after `rename`), for programs exported without a
  // .ptd. dtype and shape must match; a constant buffer shared by tensors
  // must get one value for all of them. Constants the checkpoints do not
  // name keep their bytes (listed in `kept`). The layout is the input's (each
  // delegate in a segment or inline as it was)
  // unless options say otherwise (segmentAlignment, constantTensorAlignment,
  // delegateAlignment, extractDelegateSegments as for serializePteBinary).
  async function pteWithWeights(pte, checkpoints, options = {}) {
    const list = Array.isArray(checkpoints) ? checkpoints : [checkpoints];
    if (list.length === 0) throw invalidArgument('pteWithWeights needs at least one safetensors source');
    const output = outputForm(options, 'options');
    const rules = renameRules(options?.rename);
    const source = open(pte);
    const summary = et.inspect(source, { kind: 'pte' });
    const deserialized = et.deserializePteBinary(source);
    const { program } = deserialized;
    const tensors = programTensors(et, source, program);
    const files = await readCheckpoints(list);
    const { assigned, written: replaced, kept, unused } = await plan('constant', files, source, tensors, rules);
    if (replaced.length === 0) throw new EtpackError('NO_MATCHING_TENSORS', 'no constant of the program is named in the checkpoints');
    // A deserialized constant's storage holds its bytes and the padding up to
    // the next constant (the input's tensor alignment, say 64): new bytes get
    // zeros up to that length, so the constant segment keeps the input's
    // layout unless constantTensorAlignment asks for another.
    const keepLayout = options?.constantTensorAlignment == null;
    const storage = new Map();
    for (const a of assigned) {
      let data = assignedData(a, files, a.tensor);
      const was = storageSize(program.constant_buffer[a.tensor.bufferIndex]?.storage);
      if (keepLayout && was > data.size) data = new Artifact([...data.pieces, { zeros: was - data.size }], was);
      storage.set(a.tensor.bufferIndex, asRangeSource(data));
    }
    // A shallow copy: only constant_buffer entries are replaced.
    const constants = program.constant_buffer.map((b, i) => (storage.has(i) ? { ...b, storage: storage.get(i) } : b));
    // Each delegate stays where it was (a segment or inline), in
    // execution-plan order, unless extractDelegateSegments says otherwise.
    const inSegment = summary.methods.flatMap((m) => m.delegates.map((d) => d.location === 'segment'));
    const keep = options?.extractDelegateSegments === undefined && inSegment.some(Boolean);
    const config = {
      segmentAlignment: options?.segmentAlignment ?? Number(summary.segmentAlignment ?? 128),
      constantTensorAlignment: options?.constantTensorAlignment,
      delegateAlignment: options?.delegateAlignment,
      extractDelegateSegments: options?.extractDelegateSegments ?? keep,
    };
    const pteFile = { ...deserialized, program: { ...program, constant_buffer: constants } };
    const pteOut = keep ? et._internal.serializePteKeeping(pteFile, config, { output }, inSegment)
      : et.serializePteBinary(pteFile, config, { output });
    return { pte: pteOut, replaced, kept, unused };
  }

  // Every named constant of the program and every external tensor (bytes
  // from `data`, the program's .ptd files) as one safetensors file, each in
  // row-major order. Tensors whose dtype safetensors cannot express are
  // skipped and listed; one name at two layouts is WEIGHTS_NAME_CONFLICT.
  function exportWeights(pte, data = [], options = {}) {
    // The options repack and extract take (unknown keys refused, an aborted
    // signal is ABORTED before anything is read), plus include.
    const delivery = outputOptions(options, 'options', EXPORT_OPTIONS);
    const output = delivery.output;
    const include = options?.include === undefined ? [] : [].concat(options.include);
    if (!include.every((p) => typeof p === 'string')) throw invalidArgument('include must be a glob pattern or a list of them');
    const dataList = Array.isArray(data) ? data.map((d, i) => [nameOf(d, `data[${i}]`), d]) : Object.entries(data ?? {});
    const source = open(pte);
    const { program } = et.deserializePteBinary(source);
    const files = dataList.map(([name, value]) => ({ name, data: new et.FlatTensorSerializer().deserialize(open(value)) }));
    const { map } = namedDataOf(files);
    const given = dataList.length ? dataList.map(([name]) => baseName(name)).join(', ') : 'no .ptd files were given';
    const candidates = programTensors(et, source, program).filter((t) => t.kind !== 'mutable' && t.name !== null).map((t) => {
      const bytes = t.kind === 'external' ? map.get(t.name)?.data ?? null : t.data;
      const source = t.kind === 'external' ? (map.has(t.name) ? `its entry in ${baseName(map.get(t.name).file)}` : `the given .ptd files (${given})`)
        : `constant_buffer[${t.bufferIndex}]`;
      // The name written and reported is the file's own (fileName).
      return { tensor: { ...t, name: t.fileName }, bytes, available: bytes ? bytes.size : null, source };
    });
    // File names only: folders of the machine that wrote it stay out of the file.
    const metadata = [['format', 'pt'], ['executorch-pack.program', baseName(nameOf(pte, 'program'))]];
    if (dataList.length) metadata.push(['executorch-pack.data', dataList.map(([name]) => baseName(name)).join(',')]);
    const { reply, blobs } = weightsCall(et, 'export', () => ({
      include, metadata,
      tensors: tensorsToCore(candidates.map((c) => c.tensor)).map((t, i) => ({ ...t, available: candidates[i].available, source: candidates[i].source })),
    }));
    const pieces = [{ bytes: blobs[0] }];
    let size = blobs[0].byteLength;
    for (const { tensor: i, size: n, permute } of reply.chosen) {
      const { tensor, bytes } = candidates[i];
      const stored = sliceArtifact(bytes, n);
      if (permute) pieces.push({ entry: permutedEntry(stored, tensor, true), offset: 0, length: n });
      else pieces.push(...stored.pieces);
      size += n;
    }
    // A safetensors file without tensors is of no use: refused, with the
    // reason (the CLI says the same).
    if (reply.chosen.length === 0) throw nothingToExport(include, reply.skipped, () => et.inspect(source, { kind: 'pte' }).constants.count);
    const artifact = new Artifact(pieces, size);
    const safetensors = output === 'bytes' ? artifact.toBytes({ onProgress: delivery.onProgress, signal: delivery.signal }) : deliver(artifact, output);
    return { safetensors, tensors: reply.chosen.map((c) => candidates[c.tensor].tensor.name), skipped: reply.skipped };
  }

  return { ptdFromWeights, pteWithWeights, exportWeights };
}
