// The API under misuse (issue 38): wrong arguments are EtpackError
// INVALID_ARGUMENT, never a bare TypeError; exportWeights refuses unknown
// options and an aborted signal as repack and extract do; an aborted diff
// of two 1 GiB .ptd files rejects with ABORTED within about 100 ms and
// never holds the event loop; inspect of .ptd files Module refuses to load
// together says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, existsSync, ftruncateSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadApi } from './helpers/common.mjs';
import { runCli } from './helpers/cli.mjs';

const et = await loadApi();
const tmp = mkdtempSync(join(tmpdir(), 'etpack-misuse-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

const coded = (code) => (e) => {
  assert.ok(e instanceof et.EtpackError, `${e?.name}: ${e?.message}`);
  assert.equal(e.code, code, e.message);
  return true;
};

// A one-method program with an external tensor, and its .ptd.
function model() {
  const FLOAT = 6;
  const weight = new Uint8Array(new Float32Array([1, 2, 3, 4]).buffer);
  const program = {
    version: 0,
    execution_plan: [{
      name: 'forward',
      values: [{ val_type: 'Tensor', val: { scalar_type: FLOAT, sizes: [2, 2], dim_order: [0, 1], extra_tensor_info: { fully_qualified_name: 'w', location: 1 } } }],
      inputs: [], outputs: [0], chains: [{ inputs: [], outputs: [0], instructions: [] }],
      operators: [], delegates: [], non_const_buffer_sizes: [0],
    }],
    constant_buffer: [{ storage: [] }],
  };
  const store = new et.NamedDataStore();
  store.addNamedData('w', weight, { alignment: 16, externalTag: 'model' });
  try {
    return et.serializeForExecutorch({ program }, {}, new et.FlatTensorSerializer(), store);
  } finally {
    store.delete();
  }
}

test('profileTrace and withFetchedRanges check their arguments', async () => {
  for (const bad of [undefined, null, 0, {}, [], 'x']) assert.throws(() => et.profileTrace(bad), coded('INVALID_ARGUMENT'));
  for (const bad of [undefined, null, 0, {}, 'f']) await assert.rejects(et.withFetchedRanges(bad), coded('INVALID_ARGUMENT'));
  await assert.rejects(et.withFetchedRanges(() => 1, { round: 2 }), coded('INVALID_ARGUMENT'));
  await assert.rejects(et.withFetchedRanges(() => 1, { maxBytes: -1 }), coded('INVALID_ARGUMENT'));
  assert.equal(await et.withFetchedRanges(() => 7), 7);
});

test('exportWeights refuses unknown options and an aborted signal, as repack and extract do', () => {
  const { pte, ptd } = model();
  const data = { 'model.ptd': ptd.model };
  assert.throws(() => et.exportWeights(pte, data, { foo: 1 }), coded('INVALID_ARGUMENT'));
  assert.throws(() => et.exportWeights(pte, data, { onProgress: 5 }), coded('INVALID_ARGUMENT'));
  assert.throws(() => et.exportWeights(pte, data, { signal: 5 }), coded('INVALID_ARGUMENT'));
  assert.throws(() => et.exportWeights(pte, data, { signal: AbortSignal.abort() }), coded('ABORTED'));
  assert.throws(() => et.repack(pte, { signal: AbortSignal.abort() }), coded('ABORTED'));
  const reports = [];
  const out = et.exportWeights(pte, data, { onProgress: (p) => reports.push(p) });
  assert.deepEqual(out.tensors, ['w']);
  assert.equal(reports.at(-1).bytesWritten, out.safetensors.byteLength);
});

// A .ptd of `size` bytes of named data, sparse on disk (header written, the
// rest a hole: zeros, read from no disk).
function sparsePtd(name, size) {
  const path = join(tmp, name);
  const source = join(tmp, `${name}.bin`);
  let fd = openSync(source, 'w');
  ftruncateSync(fd, size);
  closeSync(fd);
  const artifact = new et.FlatTensorSerializer({ segmentAlignment: 4096 }).serialize({
    buffers: [et.openFile(source)], namedData: { big: { bufferIndex: 0, alignment: 16 } },
  }, { output: 'artifact' });
  fd = openSync(path, 'w');
  let at = 0;
  for (const p of artifact.pieces) {
    if (p.bytes) writeSync(fd, p.bytes, 0, p.bytes.byteLength, at);
    at += p.bytes ? p.bytes.byteLength : (p.zeros ?? p.length);
  }
  ftruncateSync(fd, artifact.size);
  closeSync(fd);
  return path;
}

test('an aborted diff of two 1 GiB .ptd rejects with ABORTED promptly, the event loop never held', async () => {
  const GiB = 2 ** 30;
  const [a, b] = [sparsePtd('a.ptd', GiB), sparsePtd('b.ptd', GiB)];
  // The core's first inspect and deserialize of a .ptd in this process
  // compile and warm its code (~250 ms under load, once): not the pass
  // measured here, whose steps are bounded by the heads, not the 1 GiB.
  et.inspect(a);
  new et.FlatTensorSerializer().deserialize(et.openFile(a));
  let longest = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  try {
    const controller = new AbortController();
    const started = performance.now();
    const diffing = et.diff(a, b, { signal: controller.signal });
    let abortedAt = 0;
    setTimeout(() => {
      abortedAt = performance.now();
      controller.abort(new Error('enough'));
    }, 150);
    await assert.rejects(diffing, coded('ABORTED'));
    const latency = performance.now() - abortedAt;
    console.log(`diff aborted after ${(abortedAt - started).toFixed(0)} ms: rejected ${latency.toFixed(1)} ms later; longest event-loop gap ${longest.toFixed(1)} ms`);
    // 100 ms is the aim (the pass yields every 20 ms of work and reads 2 MiB
    // at a time); a shared machine's scheduler gets slack here: with a load
    // of ~30 on 2 cores single synchronous steps took up to ~200 ms.
    assert.ok(latency < 400, `rejected ${latency} ms after the abort`);
    assert.ok(longest < 500, `the event loop was held ${longest} ms`);
  } finally {
    clearInterval(ticker);
  }
  await assert.rejects(et.diff(a, b, { signal: AbortSignal.abort() }), coded('ABORTED'));
  await assert.rejects(et.diff(a, b, { dataC: [] }), coded('INVALID_ARGUMENT'));
});

// A read in flight does not delay an abort (artifact.mjs untilAborted):
// writeTo, bytes() and chunks() of a 1 GiB artifact over a sparse file
// reject with ABORTED at once, whatever the 8 MiB read they wait on.
test('Artifact writeTo, bytes and chunks of 1 GiB: an abort mid-way rejects at once', async () => {
  const path = sparsePtd('c.ptd', 2 ** 30);
  const artifact = new et.FlatTensorSerializer().serialize({ buffers: [et.openFile(`${path}.bin`)],
    namedData: { big: { bufferIndex: 0, alignment: 16 } } }, { output: 'artifact' });
  const ops = {
    writeTo: (signal) => artifact.writeTo(join(tmp, 'copy.ptd'), { signal }),
    bytes: (signal) => artifact.bytes({ signal }),
    chunks: async (signal) => { for await (const _ of artifact.chunks({ signal })); },
  };
  for (const [name, op] of Object.entries(ops)) {
    const controller = new AbortController();
    const running = op(controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 60));
    const abortedAt = performance.now();
    controller.abort(new Error('enough'));
    await assert.rejects(running, coded('ABORTED'));
    const latency = performance.now() - abortedAt;
    console.log(`${name}: rejected ${latency.toFixed(1)} ms after the abort`);
    assert.ok(latency < 400, `${name}: ${latency} ms`);  // 100 ms aimed at; slack for a loaded CI machine
  }
  assert.equal(existsSync(join(tmp, 'copy.ptd')), false, 'no partial file');
});

test('inspect warns when the .ptd files given cannot load together (a key in two of them)', async () => {
  const { pte, ptd } = model();
  const [ptePath, ptdPath] = [join(tmp, 'm.pte'), join(tmp, 'model.ptd')];
  writeFileSync(ptePath, pte);
  writeFileSync(ptdPath, ptd.model);
  assert.deepEqual(et.inspect(pte, { dataFiles: [ptdPath] }).methodAllocator.warnings, []);
  const twice = et.inspect(pte, { dataFiles: [ptdPath, ptdPath] }).methodAllocator.warnings;
  assert.equal(twice.length, 1);
  assert.match(twice[0], /DUPLICATE_KEY_ACROSS_FILES\): key "w" is in both "model\.ptd" and "model\.ptd#2"/);
  assert.equal(et.validate(pte, [ptdPath, ptdPath]).errors.some((f) => f.code === 'DUPLICATE_KEY_ACROSS_FILES'), true);
  const r = await runCli(['inspect', ptePath, ptdPath, ptdPath]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /warning: Module refuses to load these \.ptd files together/);
});

test('a --header value that is not Latin-1: the message names --header', async () => {
  const r = await runCli(['inspect', 'http://127.0.0.1:9/model.pte', '--header', 'X-Token: caf\u00e9\u2603']);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /--header #1 \(X-Token\): its value is not Latin-1/);
  assert.doesNotMatch(r.stderr, /caf/);
});
