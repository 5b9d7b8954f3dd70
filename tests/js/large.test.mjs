// Large-model paths: every output form gives the same bytes as the
// contiguous result, progress reporting, inputs from files and Blobs,
// 64-bit offsets past 4 GiB (sparse file-backed inputs), and repack with
// externalize from a file keeping every constant's bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, openSync, closeSync, ftruncateSync, readFileSync, writeFileSync, writeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadApi, assertBytes, NPM } from './helpers/common.mjs';
import { syntheticProgram, patternBytes } from './helpers/programs.mjs';

const et = await loadApi();
const { Artifact, FileSource, EtpackError } = await import(join(NPM, 'index.node.mjs'));
const tmp = mkdtempSync(join(tmpdir(), 'etpack-large-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

const MiB = 1 << 20;
const GiB = 2 ** 30;
const constants = Array.from({ length: 6 }, (_, i) => patternBytes(4 * MiB + 4 * i, 10 + i));
const internalBlob = patternBytes(6 * MiB + 3, 30);
const externalBlob = patternBytes(8 * MiB + 1, 31);

function serialize(inputs, options) {
  const store = new et.NamedDataStore();
  store.addNamedData('backend.blob', inputs.internal, { alignment: 64 });
  store.addNamedData('ext.weight', inputs.external, { alignment: 128, externalTag: 'weights' });
  store.addNamedData('ext.same', inputs.externalCopy ?? inputs.external, { alignment: 16, externalTag: 'weights' });
  try {
    return et.serializeForExecutorch({ program: syntheticProgram({ constants: inputs.constants, ints: 10 }) },
      { segmentAlignment: 256 }, undefined, store, options);
  } finally {
    store.delete();
  }
}

const memoryInputs = { constants, internal: internalBlob, external: externalBlob, externalCopy: externalBlob.slice() };
const reference = serialize(memoryInputs);

async function collect(iterable) {
  const parts = [];
  for await (const chunk of iterable) parts.push(Buffer.from(chunk));
  return new Uint8Array(Buffer.concat(parts));
}

async function assertAllForms(artifact, expected, what) {
  assert.ok(artifact instanceof Artifact, `${what}: an Artifact`);
  assert.equal(artifact.size, expected.byteLength, `${what}: size`);
  assertBytes(artifact.toBytes(), expected, `${what}: toBytes()`);
  assertBytes(await artifact.bytes(), expected, `${what}: bytes()`);
  assertBytes(new Uint8Array(await artifact.toBlob().arrayBuffer()), expected, `${what}: toBlob()`);
  assertBytes(await collect(artifact.stream()), expected, `${what}: stream()`);
  assertBytes(await collect(artifact.toNodeStream()), expected, `${what}: toNodeStream()`);
  const path = join(tmp, `${what.replace(/\W/g, '_')}.bin`);
  assert.equal(await artifact.writeTo(path), expected.byteLength, `${what}: writeTo() count`);
  assertBytes(new Uint8Array(readFileSync(path)), expected, `${what}: writeTo()`);
}

test('the reference output deduplicates equal external data and validates', () => {
  assert.deepEqual(Object.keys(reference.ptd), ['weights']);
  const report = et.validate(reference.pte, { 'weights.ptd': reference.ptd.weights });
  assert.deepEqual(report.errors, []);
  const data = new et.FlatTensorSerializer().deserialize(reference.ptd.weights);
  assert.equal(data.buffers.length, 1, 'ext.weight and ext.same share one buffer');
  assertBytes(data.buffers[0], externalBlob, 'external bytes');
});

test('every output form equals the contiguous result (in-memory inputs)', async () => {
  const r = serialize(memoryInputs, { output: 'artifact' });
  await assertAllForms(r.pte, reference.pte, 'pte');
  await assertAllForms(r.ptd.weights, reference.ptd.weights, 'ptd');
  const blobs = serialize(memoryInputs, { output: 'blob' });
  assert.ok(blobs.pte instanceof Blob);
  assertBytes(new Uint8Array(await blobs.pte.arrayBuffer()), reference.pte, 'output: blob');
  assertBytes(new Uint8Array(await blobs.ptd.weights.arrayBuffer()), reference.ptd.weights, 'output: blob (ptd)');
});

test('weights are referenced, not copied, until the artifact is materialised', () => {
  const r = serialize(memoryInputs, { output: 'artifact' });
  const referenced = r.pte.pieces.filter((p) => p.entry).map((p) => p.entry.bytes);
  for (const c of constants) assert.ok(referenced.includes(c), 'each constant is a piece referencing the caller array');
  const own = r.pte.pieces.filter((p) => p.bytes).reduce((n, p) => n + p.bytes.byteLength, 0);
  assert.ok(own < 64 * 1024, `only metadata is held by the artifact (${own} bytes)`);
});

test('onProgress: monotone, ends at the total, across all files of a call', async () => {
  const seen = [];
  const r = serialize(memoryInputs, { onProgress: (p) => seen.push(p) });
  const total = r.pte.byteLength + r.ptd.weights.byteLength;
  assert.ok(seen.length > 2, `several reports (${seen.length})`);
  for (let i = 1; i < seen.length; ++i) assert.ok(seen[i].bytesWritten >= seen[i - 1].bytesWritten, 'monotone');
  assert.ok(seen.every((p) => p.totalBytes === total), 'totalBytes is the sum of all outputs');
  assert.equal(seen.at(-1).bytesWritten, total);

  const a = serialize(memoryInputs, { output: 'artifact' }).pte;
  const written = [];
  await a.writeTo(join(tmp, 'progress.pte'), { onProgress: (p) => written.push(p) });
  assert.equal(written.at(-1).bytesWritten, a.size);
  assert.ok(written.every((p) => p.totalBytes === a.size));
  const viaBytes = [];
  await a.bytes({ onProgress: (p) => viaBytes.push(p.bytesWritten) });
  assert.equal(viaBytes.at(-1), a.size);
});

test('file-backed inputs give the same bytes and are read once when written', async () => {
  const paths = constants.map((c, i) => {
    const p = join(tmp, `const${i}.bin`);
    writeFileSync(p, c);
    return p;
  });
  writeFileSync(join(tmp, 'internal.bin'), internalBlob);
  writeFileSync(join(tmp, 'external.bin'), externalBlob);
  writeFileSync(join(tmp, 'external2.bin'), externalBlob);
  const files = {
    constants: paths.map((p) => et.openFile(p)),
    internal: et.openFile(join(tmp, 'internal.bin')),
    external: et.openFile(join(tmp, 'external.bin')),
    externalCopy: et.openFile(join(tmp, 'external2.bin')),
  };
  const all = [...files.constants, files.internal, files.external, files.externalCopy];
  try {
    assert.ok(files.internal instanceof FileSource);
    const r = serialize(files, { output: 'artifact' });
    const hashed = all.reduce((n, f) => n + f.bytesRead, 0);
    // The two equal external inputs are read whole (to hash them for dedup);
    // otherwise only the 32 bytes at each end of an input (the dedup
    // fingerprint) each time it is handed to the core.
    const edges = hashed - 2 * externalBlob.byteLength;
    assert.ok(edges >= 64 * all.length && edges <= 64 * 2 * all.length && edges % 64 === 0, `read ${hashed} bytes`);
    for (const f of all) f.bytesRead = 0;
    await r.pte.writeTo(join(tmp, 'files.pte'));
    await r.ptd.weights.writeTo(join(tmp, 'files.ptd'));
    assertBytes(new Uint8Array(readFileSync(join(tmp, 'files.pte'))), reference.pte, 'pte from files');
    assertBytes(new Uint8Array(readFileSync(join(tmp, 'files.ptd'))), reference.ptd.weights, 'ptd from files');
    const weightBytes = constants.reduce((n, c) => n + c.byteLength, 0) + internalBlob.byteLength + externalBlob.byteLength;
    assert.equal(all.reduce((n, f) => n + f.bytesRead, 0), weightBytes, 'each weight byte read exactly once');
    const contiguous = serialize(files);
    assertBytes(contiguous.pte, reference.pte, 'contiguous from files');
  } finally {
    for (const f of all) f.close();
  }
});

test('Blob inputs: zero-copy Blob output; dedup needs openBlob(), and says so', async () => {
  const blobInputs = {
    constants: constants.map((c) => new Blob([c])),
    internal: new Blob([internalBlob]),
    external: await et.openBlob(new Blob([externalBlob])),
    externalCopy: await et.openBlob(new Blob([externalBlob])),
  };
  const r = serialize(blobInputs, { output: 'blob' });
  assertBytes(new Uint8Array(await r.pte.arrayBuffer()), reference.pte, 'pte from Blobs');
  assertBytes(new Uint8Array(await r.ptd.weights.arrayBuffer()), reference.ptd.weights, 'ptd from Blobs');
  const a = serialize(blobInputs, { output: 'artifact' });
  assertBytes(await a.pte.bytes(), reference.pte, 'bytes() from Blobs');
  assert.throws(() => a.pte.toBytes(), (e) => e instanceof EtpackError && e.code === 'BLOB_NOT_OPENED');
  // Two unopened Blobs of equal size: dedup must compare them, which cannot
  // happen synchronously; an error, never a silent duplicate.
  assert.throws(() => serialize({ ...blobInputs, external: new Blob([externalBlob]), externalCopy: new Blob([externalBlob]) }),
    (e) => e instanceof EtpackError && e.code === 'BLOB_NOT_OPENED' && /openBlob/.test(e.message));
  // An opened .pte Blob can be deserialized and repacked.
  const pteBlob = await et.openBlob(new Blob([reference.pte]));
  assert.equal(pteBlob.kind, 'pte');
  const again = et.repack(pteBlob, { segmentAlignment: 256, output: 'blob' });
  assertBytes(new Uint8Array(await again.pte.arrayBuffer()), reference.pte, 'repack of an opened Blob');
});

function sparseFile(name, size, tail) {
  const path = join(tmp, name);
  const fd = openSync(path, 'w');
  ftruncateSync(fd, size);
  if (tail) writeSync(fd, tail, 0, tail.byteLength, size - tail.byteLength);
  closeSync(fd);
  return path;
}

test('a .ptd past 4 GiB (and offsets past 2^33) from sparse file-backed inputs: exact 64-bit offsets', async () => {
  const tailA = patternBytes(4096, 41);
  const big = et.openFile(sparseFile('big.bin', 9 * GiB + 4096, tailA));
  const small = patternBytes(1 * MiB, 42);
  try {
    const ptd = new et.FlatTensorSerializer({ segmentAlignment: 4096 }).serialize({
      buffers: [big, small],
      namedData: { big: { bufferIndex: 0, alignment: 16 }, small: { bufferIndex: 1, alignment: 16 } },
    }, { output: 'artifact' });
    assert.ok(ptd.size > 9 * GiB + 1 * MiB, `size ${ptd.size}`);
    const back = new et.FlatTensorSerializer().deserialize(ptd);
    const bigBack = back.buffers[back.namedData.big.bufferIndex];
    const smallBack = back.buffers[back.namedData.small.bufferIndex];
    assert.equal(bigBack.size, 9 * GiB + 4096, 'big buffer size exact');
    assert.equal(smallBack.buffer, small.buffer, 'an in-memory input comes back as a view of itself');
    assertBytes(smallBack, small, 'bytes after the 9 GiB segment');
    const lastBig = await bigBack[Symbol.for('executorch-pack.source')]().read(9 * GiB, 4096);
    assertBytes(lastBig, tailA, 'tail of the 9 GiB segment');
    // Where the small buffer sits in the file: a piece offset past 2^33.
    let at = 0;
    let smallAt = -1;
    for (const p of ptd.pieces) {
      if (p.entry && p.entry.bytes === small) smallAt = at;
      at += p.bytes ? p.bytes.byteLength : (p.zeros ?? p.length);
    }
    assert.equal(at, ptd.size);
    assert.ok(smallAt > 2 ** 33 && smallAt % 4096 === 0, `small at ${smallAt}`);
    // File-backed artifacts have no synchronous Blob form in Node.
    assert.throws(() => ptd.toBlob(), (e) => e.code === 'UNSUPPORTED');
  } finally {
    big.close();
  }
});

// (The multi-GiB streaming write is measured by `npm run bench`, case 4.)
test('streaming a .ptd to disk from a file input: bounded memory, exact size, progress', async () => {
  const size = 96 * MiB;
  const tail = patternBytes(4096, 43);
  const input = et.openFile(sparseFile('big2.bin', size, tail));
  try {
    const store = new et.NamedDataStore();
    store.addNamedData('w', input, { externalTag: 'model', alignment: 64 });
    const { ptd } = et.serializeForExecutorch({ program: syntheticProgram() }, {}, undefined, store, { output: 'artifact' });
    store.delete();
    const out = join(tmp, 'big.ptd');
    const before = process.memoryUsage().rss;
    let reports = 0;
    let peak = 0;
    const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 20);
    const written = await ptd.model.writeTo(out, { onProgress: () => { reports += 1; } });
    clearInterval(timer);
    peak = Math.max(peak, process.memoryUsage().rss);
    assert.equal(written, ptd.model.size);
    assert.ok(ptd.model.size > size);
    assert.ok(reports > 10, `progress reported ${reports} times`);
    assert.ok(peak - before < 48 * MiB, `rss grew by ${((peak - before) / MiB).toFixed(0)} MiB`);
    const file = et.openFile(out);
    try {
      assert.equal(file.size, ptd.model.size);
      const back = new et.FlatTensorSerializer().deserialize(file);
      const w = back.buffers[back.namedData.w.bufferIndex];
      assert.equal(w.size, size);
      assertBytes(await w[Symbol.for('executorch-pack.source')]().read(size - 4096, 4096), tail, 'last bytes in place');
    } finally {
      file.close();
    }
    rmSync(out);
  } finally {
    input.close();
  }
});

test('repack with externalize from a file: validates clean, keeps every constant\'s bytes, reads about what it writes', async () => {
  // Equal sizes: the moved tensors must be told apart by their edge bytes,
  // not by hashing every range (which would read the source twice).
  const consts = Array.from({ length: 12 }, (_, i) => patternBytes(MiB, 60 + i));
  const source = serializeProgramFile(consts);
  const pte = et.openFile(source);
  try {
    const r = et.repack(pte, { externalize: { tag: 'weights' }, output: 'artifact' });
    assert.equal(r.moved.length, consts.length);
    await r.pte.writeTo(join(tmp, 'ext.pte'));
    await r.ptd.weights.writeTo(join(tmp, 'weights.ptd'));
    const total = r.pte.size + r.ptd.weights.size;
    assert.ok(pte.bytesRead <= total && pte.bytesRead >= consts.reduce((n, c) => n + c.byteLength, 0),
      `read ${pte.bytesRead} bytes for ${total} written`);
    const newPte = readFileSync(join(tmp, 'ext.pte'));
    const newPtd = readFileSync(join(tmp, 'weights.ptd'));
    const report = et.validate(newPte, { 'weights.ptd': newPtd });
    // Until repack writes the constant segment placeholder (h-repack-core).
    assert.deepEqual(report.errors.filter((e) => e.code !== 'CONSTANT_SEGMENT_NO_PLACEHOLDER'), []);
    assert.deepEqual(report.warnings, []);
    // Data behind each tensor, before and after.
    const before = et.deserializePteBinary(readFileSync(source)).program;
    const after = et.deserializePteBinary(newPte).program;
    const data = new et.FlatTensorSerializer().deserialize(newPtd);
    const values = before.execution_plan[0].values;
    let compared = 0;
    values.forEach((v, i) => {
      if (v.val_type !== 'Tensor' || v.val.data_buffer_idx === 0) return;
      const original = before.constant_buffer[v.val.data_buffer_idx].storage;
      const moved = after.execution_plan[0].values[i].val;
      assert.equal(moved.extra_tensor_info.location, 1, 'EXTERNAL');
      const entry = data.namedData[moved.extra_tensor_info.fully_qualified_name];
      assert.ok(entry, `named data for ${moved.extra_tensor_info.fully_qualified_name}`);
      assertBytes(data.buffers[entry.bufferIndex], original, `tensor ${i}`);
      compared += 1;
    });
    assert.equal(compared, consts.length);
  } finally {
    pte.close();
  }
});

function serializeProgramFile(consts) {
  const { pte } = et.serializeForExecutorch({ program: syntheticProgram({ constants: consts, ints: 5 }) });
  const path = join(tmp, 'consts.pte');
  writeFileSync(path, pte);
  return path;
}

test('validate and inspect read only heads: a 9 GiB .ptd artifact, files on disk, opened Blobs', async () => {
  const big = et.openFile(sparseFile('big3.bin', 9 * GiB + 64, patternBytes(64, 70)));
  try {
    const ptd = new et.FlatTensorSerializer().serialize({
      buffers: [big, patternBytes(4096, 71)],
      namedData: { big: { bufferIndex: 0, alignment: 64 }, small: { bufferIndex: 1, alignment: 64 } },
    }, { output: 'artifact' });
    big.bytesRead = 0;
    const report = et.validate(ptd);
    assert.deepEqual(report.errors, []);
    assert.deepEqual(report.warnings, []);
    const summary = et.inspect(ptd);
    assert.equal(summary.fileSize, ptd.size);
    assert.equal(summary.segmentMap.at(-1).end, ptd.size, 'the map reaches the end of the file');
    assert.ok(big.bytesRead < 1 << 20, `read ${big.bytesRead} bytes of the 9 GiB input (padding only)`);
  } finally {
    big.close();
  }
  // A file on disk, and the pair validated together.
  const ptePath = join(tmp, 'pair.pte');
  const ptdPath = join(tmp, 'pair.ptd');
  writeFileSync(ptePath, reference.pte);
  writeFileSync(ptdPath, reference.ptd.weights);
  const [pteFile, ptdFile] = [et.openFile(ptePath), et.openFile(ptdPath)];
  try {
    assert.deepEqual(et.validate(pteFile, { 'weights.ptd': ptdFile }), et.validate(reference.pte, { 'weights.ptd': reference.ptd.weights }));
    assert.ok(ptdFile.bytesRead < reference.ptd.weights.byteLength / 4, `read ${ptdFile.bytesRead} of ${reference.ptd.weights.byteLength} bytes`);
  } finally {
    pteFile.close();
    ptdFile.close();
  }
  // Opened Blobs: heads are read ahead; padding past them cannot be peeked at
  // synchronously, so a dirty padding byte there goes unreported (in bytes it is).
  const dirty = reference.ptd.weights.slice();
  const dataStart = Number(et.inspect(dirty).segmentMap.find((r) => r.kind === 'namedData').start);
  dirty[dataStart - 1] = 7;
  const asBytes = et.validate(dirty);
  // The byte right before a segment: an error (its offset looks moved), not a mere warning.
  assert.ok(asBytes.errors.some((e) => e.code === 'PADDING_BEFORE_SEGMENT_NOT_ZERO'), JSON.stringify(asBytes));
  const opened = await et.openBlob(new Blob([dirty]));
  assert.equal(opened.kind, 'ptd');
  const asBlob = et.validate(opened);
  // The byte lies in the read-ahead head, so it is seen there too; nothing else is an error.
  assert.deepEqual(asBlob.errors.filter((e) => e.code !== 'PADDING_BEFORE_SEGMENT_NOT_ZERO'), []);
  assert.equal(et.inspect(opened).fileSize, dirty.byteLength);
  // Not a .pte/.ptd at all: its first bytes are kept, so the report says why.
  const junk = await et.openBlob(new Blob([new Uint8Array(100000).fill(65)]));
  assert.equal(junk.kind, null);
  assert.ok(et.validate(junk).errors.some((e) => e.code === 'BAD_IDENTIFIER'));
});
