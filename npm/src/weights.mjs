// New weights without re-exporting: a program's external tensors written into
// a .ptd from safetensors checkpoints (ptdFromWeights), and a program's named
// tensors written out as safetensors (exportWeights). Tensor bytes are never
// loaded here: outputs are Artifacts whose pieces reference the input files,
// so they are read once, while the output is written.
import { EtpackError, invalidArgument } from './errors.mjs';
import { Artifact } from './artifact.mjs';
import { entryOf } from './sources.mjs';
import { externalTensors, hashArtifact, namedDataOf, programTensors, sliceArtifact } from './program-tensors.mjs';
import { MAX_HEADER_BYTES, readSafetensorsHeader, safetensorsPieces, SCALAR_TO_DTYPE } from './safetensors.mjs';

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

// Glob with '*' and '?' (as repack's --externalize-pattern).
export function globMatcher(patterns) {
  if (!patterns || patterns.length === 0) return () => true;
  const res = patterns.map((p) => new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 's'));
  return (name) => res.some((re) => re.test(name));
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
      let map;
      try {
        const text = new TextDecoder('utf-8', { fatal: true }).decode(await entryOf(index, value).read(0, index.size));
        map = JSON.parse(text).weight_map;
      } catch (e) {
        throw new EtpackError('SAFETENSORS_INDEX', `${value}: not a safetensors index (${e.message})`);
      } finally {
        index.close?.();
      }
      if (map === null || typeof map !== 'object' || Array.isArray(map)) throw new EtpackError('SAFETENSORS_INDEX', `${value}: no weight_map object`);
      const shards = new Map();
      for (const [tensor, shard] of Object.entries(map)) {
        if (typeof shard !== 'string' || shard === '' || /[/\\]/.test(shard) || shard === '..' || shard === '.') {
          throw new EtpackError('SAFETENSORS_INDEX', `${value}: weight_map['${tensor}'] is not a file name in the index's folder`);
        }
        if (!shards.has(shard)) shards.set(shard, []);
        shards.get(shard).push(tensor);
      }
      return [...shards].map(([shard, names]) => ({ file: dirOf(value) + shard, source: et.openFile(dirOf(value) + shard), expect: names, index: value }));
    }
    return [{ file: nameOf(value, `sources[${i}]`), source: open(value) }];
  }

  // Every tensor of every checkpoint, after the rename rules: Map name ->
  // {dtype, scalarType, shape, size, entry, offset, file, original}.
  async function readCheckpoints(list, rename) {
    const tensors = new Map();
    const files = [];
    for (let i = 0; i < list.length; ++i) {
      for (const { file, source, expect, index } of await checkpointFiles(list[i], i)) {
        const entry = entryOf(source, file);
        const header = await readSafetensorsHeader(entry, file);
        files.push(file);
        for (const name of expect ?? []) {
          if (!header.tensors.has(name)) throw new EtpackError('SAFETENSORS_INDEX', `${index}: '${name}' is not in ${file}`);
        }
        for (const [original, t] of header.tensors) {
          const name = renamed(original, rename);
          if (tensors.has(name)) {
            throw new EtpackError('SAFETENSORS_DUPLICATE', `tensor '${name}' is in both ${tensors.get(name).file} and ${file}`);
          }
          tensors.set(name, { ...t, entry, file, original });
        }
      }
    }
    return { tensors, files };
  }

  // rename: [[from, to], ...] or {from: to}: the first rule whose `from`
  // prefixes a checkpoint name replaces that prefix.
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
  function renamed(name, rules) {
    for (const [from, to] of rules) if (name.startsWith(from)) return to + name.slice(from.length);
    return name;
  }

  const sameShape = (a, b) => a.length === b.length && a.every((d, i) => Number(d) === Number(b[i]));
  const typeText = (scalarType, sizes) => `${SCALAR_TO_DTYPE.get(scalarType) ?? `ScalarType ${scalarType}`}[${sizes.join(', ')}]`;

  // What keeps checkpoint tensor `c` from standing in for program tensor `t`
  // (null: nothing).
  function misfit(t, c) {
    const wants = `the program wants ${typeText(t.scalarType, t.sizes)}`;
    if (c.scalarType !== t.scalarType) return { name: t.name, problem: 'dtype', message: `'${t.name}' is ${c.dtype} in ${c.file}, ${wants}` };
    if (!sameShape(c.shape, t.sizes)) {
      return { name: t.name, problem: 'shape', message: `'${t.name}' has shape [${c.shape.join(', ')}] in ${c.file}, ${wants}` };
    }
    return null;
  }

  function mismatch(problems) {
    const e = new EtpackError('WEIGHTS_MISMATCH', `${problems.length} tensor(s) do not fit the program:\n${problems.map((p) => `  ${p.message}`).join('\n')}`);
    e.problems = problems;
    return e;
  }

  // The .ptd holding the program's external tensors, bytes from the
  // checkpoints. Every missing tensor or dtype/shape mismatch is collected
  // into one WEIGHTS_MISMATCH error (its `problems` list each); nothing is
  // produced then.
  async function ptdFromWeights(pte, checkpoints, options = {}) {
    const list = Array.isArray(checkpoints) ? checkpoints : [checkpoints];
    if (list.length === 0) throw invalidArgument('ptdFromWeights needs at least one safetensors source');
    const output = outputForm(options, 'options');
    const segmentAlignment = options?.segmentAlignment ?? 128;
    const tag = options?.tag ?? null;
    const rules = renameRules(options?.rename);
    const { program } = et.deserializePteBinary(open(pte));
    const needed = externalTensors(program);
    if (needed.length === 0) throw new EtpackError('NO_EXTERNAL_TENSORS', 'the program has no external tensors: it needs no .ptd');
    const { tensors } = await readCheckpoints(list, rules);
    const problems = [];
    for (const t of needed) {
      const c = tensors.get(t.name);
      const problem = c ? misfit(t, c) : { name: t.name, problem: 'missing', message: `'${t.name}' (${typeText(t.scalarType, t.sizes)}) is not in the checkpoints` };
      if (problem) problems.push(problem);
    }
    if (problems.length) throw mismatch(problems);
    // Equal bytes share one segment (as the serializer's own dedup would
    // when the program was exported): tensors are hashed only when another
    // has the same size.
    const bySize = new Map();
    for (const t of needed) bySize.set(tensors.get(t.name).size, (bySize.get(tensors.get(t.name).size) ?? 0) + 1);
    const buffers = [];
    const bufferOf = new Map();
    const namedData = Object.create(null);
    for (const t of needed) {
      const c = tensors.get(t.name);
      const data = new Artifact([{ entry: c.entry, offset: c.offset, length: c.size }], c.size);
      let key = null;
      if (bySize.get(c.size) > 1) key = `${c.size}:${await hashArtifact(data, createHasher)}`;
      let index = key !== null ? bufferOf.get(key) : undefined;
      if (index === undefined) {
        index = buffers.push(data) - 1;
        if (key !== null) bufferOf.set(key, index);
      }
      namedData[t.name] = { bufferIndex: index, alignment: 1, tensorLayout: { scalarType: t.scalarType, sizes: t.sizes, dimOrder: t.dimOrder } };
    }
    const ptd = new et.FlatTensorSerializer({ segmentAlignment }).serialize({ buffers, namedData }, { output });
    const used = new Set(needed.map((t) => t.name));
    return { ptd, tag, written: needed.map((t) => t.name), unused: [...tensors.keys()].filter((n) => !used.has(n)) };
  }

  // The .pte with its named constants' bytes taken from the checkpoints (by
  // fully-qualified name, after `rename`), for programs exported without a
  // .ptd. dtype and shape must match; a constant buffer shared by tensors
  // must get one value for all of them. Constants the checkpoints do not
  // name keep their bytes (listed in `kept`). The layout is the input's
  // unless options say otherwise (segmentAlignment, constantTensorAlignment,
  // delegateAlignment, extractDelegateSegments as for serializePteBinary).
  async function pteWithWeights(pte, checkpoints, options = {}) {
    const list = Array.isArray(checkpoints) ? checkpoints : [checkpoints];
    if (list.length === 0) throw invalidArgument('pteWithWeights needs at least one safetensors source');
    const output = outputForm(options, 'options');
    const source = open(pte);
    const summary = et.inspect(source, { kind: 'pte' });
    const deserialized = et.deserializePteBinary(source);
    const { program } = deserialized;
    const { tensors } = await readCheckpoints(list, renameRules(options?.rename));
    const problems = [];
    const replaced = [];
    const kept = [];
    const byBuffer = new Map();  // buffer index -> [{tensor, checkpoint entry or null}]
    const seen = new Set();
    for (const t of programTensors(program)) {
      if (t.kind !== 'constant') continue;
      if (!byBuffer.has(t.bufferIndex)) byBuffer.set(t.bufferIndex, []);
      const c = t.name !== null ? tensors.get(t.name) ?? null : null;
      byBuffer.get(t.bufferIndex).push({ t, c });
      if (t.name === null || seen.has(t.name)) continue;
      seen.add(t.name);
      const problem = c ? misfit(t, c) : null;
      if (!c) kept.push(t.name);
      else if (problem) problems.push(problem);
      else replaced.push(t.name);
    }
    const storage = new Map();
    for (const [index, users] of byBuffer) {
      const given = users.filter((u) => u.c);
      if (given.length === 0) continue;
      const first = given[0].c;
      const differs = given.some((u) => u.c.entry !== first.entry || u.c.offset !== first.offset);
      if (given.length !== users.length || differs) {
        const names = users.map((u) => u.t.name ?? u.t.path).join(', ');
        problems.push({ name: given[0].t.name, problem: 'shared', message: `constant buffer ${index} is shared by ${names}: give one value for all of them` });
        continue;
      }
      storage.set(index, new Artifact([{ entry: first.entry, offset: first.offset, length: first.size }], first.size));
    }
    if (problems.length) throw mismatch(problems);
    if (replaced.length === 0) throw new EtpackError('NO_MATCHING_TENSORS', 'no constant of the program is named in the checkpoints');
    // A shallow copy: only constant_buffer entries are replaced.
    const constants = program.constant_buffer.map((b, i) => (storage.has(i) ? { ...b, storage: storage.get(i) } : b));
    const delegatesInSegments = summary.methods.some((m) => m.delegates.some((d) => d.location === 'segment'));
    const config = {
      segmentAlignment: options?.segmentAlignment ?? Number(summary.segmentAlignment ?? 128),
      constantTensorAlignment: options?.constantTensorAlignment,
      delegateAlignment: options?.delegateAlignment,
      extractDelegateSegments: options?.extractDelegateSegments ?? delegatesInSegments,
    };
    const pteOut = et.serializePteBinary({ ...deserialized, program: { ...program, constant_buffer: constants } }, config, { output });
    const used = new Set(replaced);
    return { pte: pteOut, replaced, kept, unused: [...tensors.keys()].filter((n) => !used.has(n)) };
  }

  // Every named constant of the program and every external tensor (bytes
  // from `data`, the program's .ptd files) as one safetensors file. Tensors
  // whose dtype safetensors cannot express are skipped and listed.
  function exportWeights(pte, data = [], options = {}) {
    const output = outputForm(options, 'options');
    const include = globMatcher(options?.include === undefined ? [] : [].concat(options.include));
    const dataList = Array.isArray(data) ? data.map((d, i) => [nameOf(d, `data[${i}]`), d]) : Object.entries(data ?? {});
    const { program } = et.deserializePteBinary(open(pte));
    const files = dataList.map(([name, value]) => ({ name, data: new et.FlatTensorSerializer().deserialize(open(value)) }));
    const { map } = namedDataOf(files);
    const chosen = [];
    const skipped = [];
    const missing = [];
    const seen = new Set();
    for (const t of programTensors(program)) {
      if (t.kind === 'mutable' || t.name === null || seen.has(t.name) || !include(t.name)) continue;
      seen.add(t.name);
      const dtype = SCALAR_TO_DTYPE.get(t.scalarType);
      if (dtype === undefined || t.nbytes === null) {
        skipped.push({ name: t.name, reason: `ScalarType ${t.scalarType} has no safetensors dtype` });
        continue;
      }
      let bytes = t.data;
      if (t.kind === 'external') {
        const found = map.get(t.name);
        if (!found) {
          missing.push(t.name);
          continue;
        }
        bytes = found.data;
      }
      if (!bytes || bytes.size < t.nbytes) {
        missing.push(t.name);
        continue;
      }
      chosen.push({ name: t.name, dtype, shape: t.sizes, size: t.nbytes, pieces: sliceArtifact(bytes, t.nbytes).pieces });
    }
    if (missing.length) {
      throw new EtpackError('EXTERNAL_DATA_MISSING', `no data for ${missing.length} tensor(s) (pass the .ptd files that hold them): ${missing.join(', ')}`);
    }
    // File names only: folders of the machine that wrote it stay out of the file.
    const metadata = { format: 'pt', 'executorch-pack.program': baseName(nameOf(pte, 'program')) };
    if (dataList.length) metadata['executorch-pack.data'] = dataList.map(([name]) => baseName(name)).join(',');
    const { pieces, size } = safetensorsPieces(chosen, metadata);
    const artifact = new Artifact(pieces, size);
    return { safetensors: deliver(artifact, output), tensors: chosen.map((t) => t.name), skipped };
  }

  return { ptdFromWeights, pteWithWeights, exportWeights };
}
