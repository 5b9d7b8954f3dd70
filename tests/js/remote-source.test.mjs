// Remote sources (et.openUrl) against a loopback HTTP server that counts the
// bytes it sends: what inspect, validate and repack transfer, the same
// results as from local files, and the server's misbehaviours as coded
// errors (redirects, no Range support, 404, a file changing between two
// requests, a slow server).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, ftruncateSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadApi, assertBytes, NPM } from './helpers/common.mjs';
import { syntheticProgram, patternBytes } from './helpers/programs.mjs';
import { startRangeServer } from './helpers/range-server.mjs';

const et = await loadApi();
const { Artifact } = await import(join(NPM, 'index.node.mjs'));
const tmp = mkdtempSync(join(tmpdir(), 'etpack-remote-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

const KiB = 1024;
const MiB = 1 << 20;
const GiB = 2 ** 30;

// A valid 1 GiB .ptd on disk as a sparse file: a small segment, then a
// 1 GiB one of zeros that is never written (ftruncate extends the file).
function writeSparsePtd(path) {
  const artifact = new et.FlatTensorSerializer().serialize({
    buffers: [patternBytes(100, 1), new Artifact([{ zeros: GiB }], GiB)],
    namedData: { small: { bufferIndex: 0, alignment: 16 }, huge: { bufferIndex: 1, alignment: 64 } },
  }, { output: 'artifact' });
  const fd = openSync(path, 'w');
  let at = 0;
  for (const p of artifact.pieces.slice(0, -1)) {  // all but the huge segment (the last piece)
    const n = p.bytes ? p.bytes.byteLength : (p.zeros ?? p.length);
    const bytes = p.bytes ?? new Uint8Array(n);
    if (p.entry) p.entry.copyTo(bytes, 0, p.offset, n);
    writeSync(fd, bytes, 0, n, at);
    at += n;
  }
  assert.equal(artifact.pieces.at(-1).length, GiB);
  ftruncateSync(fd, artifact.size);
  closeSync(fd);
  return artifact.size;
}

// A .pte with 6 MiB of constants in its segment and a .ptd with 4 MiB of
// external data: the heads are small, the data large.
function writeModel() {
  const store = new et.NamedDataStore();
  try {
    store.addNamedData('ext.weight', patternBytes(4 * MiB, 7), { alignment: 64, externalTag: 'weights' });
    store.addNamedData('backend.blob', patternBytes(1 * MiB + 12, 8), { alignment: 64 });
    const { pte, ptd } = et.serializeForExecutorch({
      program: syntheticProgram({ constants: [patternBytes(2 * MiB, 1), patternBytes(2 * MiB + 4, 2), patternBytes(2 * MiB + 8, 3)], ints: 4 }),
    }, { segmentAlignment: 4096 }, undefined, store);
    writeFileSync(join(tmp, 'model.pte'), pte);
    writeFileSync(join(tmp, 'weights.ptd'), ptd.weights);
  } finally {
    store.delete();
  }
}

const bigSize = writeSparsePtd(join(tmp, 'big.ptd'));
writeModel();
const file = (name) => join(tmp, name);
const server = await startRangeServer({
  'big.ptd': file('big.ptd'), 'model.pte': file('model.pte'), 'weights.ptd': file('weights.ptd'),
}, { slowMs: 3000 });
after(() => server.close());

// Runs `fn` and returns its result and the body bytes the server sent meanwhile.
async function served(fn) {
  server.reset();
  const result = await fn();
  return { result, bytes: server.stats.bytes, requests: server.stats.requests };
}

async function rejectsWith(promise, code, pattern) {
  await assert.rejects(promise, (e) => {
    assert.equal(e.name, 'EtpackError', String(e.stack));
    assert.equal(e.code, code, e.message);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

test('inspect of a 1 GiB .ptd over HTTP fetches under 1 MiB and equals the local summary', async (t) => {
  const { result: summary, bytes, requests } = await served(async () => {
    const source = await et.openUrl(server.url('f', 'big.ptd'));
    assert.equal(source.size, bigSize);
    assert.equal(source.kind, 'ptd');
    assert.equal(source.rangeSupported, true);
    const s = et.inspect(source);
    assert.equal(source.bytesFetched, server.stats.bytes, 'the source counts what the server sent');
    return s;
  });
  const local = et.openFile(file('big.ptd'));
  assert.deepEqual(summary, et.inspect(local));
  local.close();
  assert.equal(summary.namedData.size[summary.namedData.key.indexOf('huge')], GiB);
  assert.ok(bytes < MiB, `${bytes} bytes fetched`);
  t.diagnostic(`inspect big.ptd (${bigSize} bytes): ${bytes} bytes fetched in ${requests} request(s)`);
});

test('validate PTE + PTD over HTTP gives the local report, fetching heads and padding only', async (t) => {
  const local = et.validate(et.openFile(file('model.pte')), { 'weights.ptd': et.openFile(file('weights.ptd')) });
  assert.equal(local.ok, true, JSON.stringify(local));
  const { result: remote, bytes, requests } = await served(async () => et.validate(
    await et.openUrl(server.url('f', 'model.pte')), { 'weights.ptd': await et.openUrl(server.url('redirect', 'weights.ptd')) }));
  assert.deepEqual(remote, local);
  const total = readFileSync(file('model.pte')).byteLength + readFileSync(file('weights.ptd')).byteLength;
  assert.ok(bytes < 512 * KiB, `${bytes} of ${total} bytes fetched`);
  t.diagnostic(`validate model.pte + weights.ptd (${total} bytes): ${bytes} bytes fetched in ${requests} request(s)`);
});

test('a non-zero padding byte is found over HTTP too; padding past the budget is reported unchecked', async () => {
  const bytes = readFileSync(file('model.pte'));
  const padding = et.inspect(bytes).segmentMap.filter((r) => r.kind === 'padding' && Number(r.start) > 64 * KiB).at(-1);
  assert.ok(padding, 'a padding region past the head');
  bytes[Number(padding.start)] = 1;
  writeFileSync(file('dirty.pte'), bytes);
  const s = await startRangeServer({ 'dirty.pte': file('dirty.pte') });
  try {
    const local = et.validate(et.openFile(file('dirty.pte')));
    // Right after a segment, a non-zero byte is an error (a cut segment); elsewhere a warning.
    const dirtyPadding = (r) => [...r.errors, ...r.warnings].some((f) => /^PADDING_(AFTER_SEGMENT_)?NOT_ZERO$/.test(f.code));
    assert.ok(dirtyPadding(local), JSON.stringify(local));
    assert.deepEqual(et.validate(await et.openUrl(s.url('f', 'dirty.pte'))), local);
    const source = await et.openUrl(s.url('f', 'dirty.pte'), { paddingBytes: 0 });
    assert.ok(source.uncheckedPadding > 0);
    const unchecked = et.validate(source);
    assert.ok(!dirtyPadding(unchecked));
    const note = unchecked.warnings.find((w) => w.code === 'PADDING_NOT_CHECKED');
    assert.ok(note, JSON.stringify(unchecked));
    assert.equal(note.file, 'pte');
  } finally {
    await s.close();
  }
});

test('repack from URLs writes the same bytes as from local files, streaming the data ranges', async (t) => {
  const options = { merge: [], externalize: { tag: 'moved', minBytes: 1 }, output: 'artifact' };
  const local = et.repack(et.openFile(file('model.pte')), { ...options, merge: [et.openFile(file('weights.ptd'))] });
  const localPte = local.pte.toBytes();
  const localMoved = local.ptd.moved.toBytes();
  const { result, bytes, requests } = await served(async () => {
    const pte = await et.openUrl(server.url('f', 'model.pte'));
    const ptd = await et.openUrl(server.url('f', 'weights.ptd'));
    const opened = server.stats.bytes;
    const r = et.repack(pte, { ...options, merge: [ptd] });
    // Contiguous output needs the data synchronously: a coded error that says how.
    assert.throws(() => r.pte.toBytes(), (e) => e.code === 'RANGE_NOT_FETCHED' && /writeTo/.test(e.message));
    let progress = 0;
    await r.ptd.moved.writeTo(file('out-moved.ptd'), { onProgress: (p) => { progress = p.bytesWritten; } });
    await r.pte.writeTo(file('out.pte'));
    assert.equal(progress, localMoved.byteLength);
    return { opened };
  });
  assertBytes(new Uint8Array(readFileSync(file('out.pte'))), localPte, 'repacked .pte');
  assertBytes(new Uint8Array(readFileSync(file('out-moved.ptd'))), localMoved, 'repacked .ptd');
  const inputs = readFileSync(file('model.pte')).byteLength + readFileSync(file('weights.ptd')).byteLength;
  assert.ok(bytes <= inputs + 256 * KiB, `${bytes} bytes fetched for ${inputs} bytes of inputs`);
  t.diagnostic(`repack model.pte + weights.ptd (${inputs} bytes) -> ${localPte.byteLength + localMoved.byteLength} bytes: ` +
    `${bytes} bytes fetched (${result.opened} at open) in ${requests} request(s)`);
});

test('deserializePteBinary and data inputs over HTTP: segments stay lazy and read the same bytes', async () => {
  const local = et.deserializePteBinary(readFileSync(file('model.pte')));
  const source = await et.openUrl(server.url('f', 'model.pte'));
  const before = source.bytesFetched;
  const remote = et.deserializePteBinary(source);
  assert.equal(source.bytesFetched, before, 'nothing fetched by deserialize itself');
  assert.deepEqual(remote.program.execution_plan, local.program.execution_plan);
  const constant = remote.program.constant_buffer[1].storage;
  assert.ok(constant instanceof Artifact, 'constants stay lazy');
  assertBytes(await constant.bytes(), local.program.constant_buffer[1].storage, 'constant bytes');
  const blob = remote.namedData.buffers[0];
  assert.ok(blob instanceof Artifact);
  assertBytes(await blob.bytes(), local.namedData.buffers[0], 'named data buffer');
  // A raw data file as FlatTensorSerializer input.
  const data = await et.openUrl(server.url('f', 'weights.ptd'), { padding: false });
  const fts = new et.FlatTensorSerializer();
  const payload = (b) => ({ buffers: [b], namedData: { w: { bufferIndex: 0, alignment: 16 } } });
  assertBytes(await fts.serialize(payload(data), { output: 'artifact' }).bytes(), fts.serialize(payload(readFileSync(file('weights.ptd')))), 'data from a URL');
});

test('a server that ignores Range: the file is read once, whole, within maxBytes', async () => {
  const size = readFileSync(file('weights.ptd')).byteLength;
  const { result: source, bytes, requests } = await served(() => et.openUrl(server.url('norange', 'weights.ptd')));
  assert.equal(source.rangeSupported, false);
  assert.equal(source.bytesFetched, size);
  assert.equal(bytes, size);
  assert.equal(requests, 1);
  assert.deepEqual(et.validate(source), et.validate(readFileSync(file('weights.ptd'))));
  await rejectsWith(et.openUrl(server.url('norange', 'weights.ptd'), { maxBytes: MiB }), 'SOURCE_TOO_LARGE', /maxBytes/);
});

test('HTTP errors, network errors and timeouts are coded errors naming the URL, never a header value', async () => {
  const secret = 'Bearer do-not-print-me';
  const missing = et.openUrl(`${server.base}/nothing/here.pte?token=abc`, { headers: { Authorization: secret } });
  await assert.rejects(missing, (e) => {
    assert.equal(e.code, 'HTTP_ERROR');
    assert.equal(e.status, 404);
    assert.match(e.message, /\/nothing\/here\.pte\?…/);
    assert.doesNotMatch(e.message, /do-not-print-me|token=abc/);
    return true;
  });
  assert.equal(server.stats.headers.at(-1).authorization, secret, 'headers reach the origin named');
  await rejectsWith(et.openUrl(server.url('slow', 'model.pte'), { timeoutMs: 200 }), 'TIMEOUT', /slow\/model\.pte/);
  await rejectsWith(et.openUrl(server.url('stall', 'model.pte'), { timeoutMs: 200 }), 'TIMEOUT', /stall\/model\.pte/);
  await rejectsWith(et.openUrl('http://127.0.0.1:1/x.pte', { timeoutMs: 2000 }), 'NETWORK_ERROR', /127\.0\.0\.1:1\/x\.pte/);
  const controller = new AbortController();
  controller.abort();
  await rejectsWith(et.openUrl(server.url('f', 'model.pte'), { signal: controller.signal }), 'ABORTED');
  await rejectsWith(et.openUrl('ftp://example.com/x.pte'), 'INVALID_ARGUMENT');
});

test('a file that changes between two requests is SOURCE_CHANGED, never a mix of versions', async () => {
  // Small first request, so the head needs a second one: the server answers
  // it from a new version.
  await rejectsWith(et.openUrl(server.url('changing', 'model.pte'), { headBytes: 256, blockSize: 256 }), 'SOURCE_CHANGED', /changing\/model\.pte/);
  const sent = server.stats.headers.filter((h) => h.url === '/changing/model.pte');
  assert.ok(sent.at(-1)['if-range'], 'later requests are conditional on the first version');
  // A server (or cache) that ignores If-Range and sends the new version's
  // range: its ETag differs from the pinned one.
  const ignoreIfRange = (url, init) => {
    const { 'If-Range': _, ...headers } = init.headers;
    return fetch(url, { ...init, headers });
  };
  await rejectsWith(et.openUrl(server.url('changing', 'weights.ptd'), { headBytes: 256, blockSize: 256, fetch: ignoreIfRange }),
    'SOURCE_CHANGED', /new version/);
});

test('redirects are followed; a plain headers object does not follow a redirect to another origin', async () => {
  const other = await startRangeServer({ 'weights.ptd': file('weights.ptd') });
  const hop = await startRangeServer({});
  try {
    const target = other.url('f', 'weights.ptd');
    const fetchVia = (url, init) => (url.startsWith(hop.base) ? new Response(null, { status: 302, headers: { Location: target } }) : fetch(url, init));
    const source = await et.openUrl(`${hop.base}/x/weights.ptd`, { fetch: fetchVia, headers: { 'X-Secret': 's3cret' } });
    assert.equal(source.size, readFileSync(file('weights.ptd')).byteLength);
    assert.ok(other.stats.requests >= 1);
    assert.ok(other.stats.headers.every((h) => h['x-secret'] === undefined), 'the header stayed with its origin');
    const seen = [];
    await et.openUrl(`${hop.base}/x/weights.ptd`, { fetch: fetchVia, headers: (url) => (seen.push(new URL(url).origin), {}) });
    assert.deepEqual([...new Set(seen)], [hop.base, other.base], 'a headers function is asked per hop');
  } finally {
    await other.close();
    await hop.close();
  }
});

test('small asynchronous reads share cached blocks; large ones go straight to the server', async () => {
  const source = await et.openUrl(server.url('f', 'weights.ptd'), { padding: false, headBytes: 4096, blockSize: 4096 });
  const local = readFileSync(file('weights.ptd'));
  const entry = source[Symbol.for('executorch-pack.source')]();
  const { bytes, requests } = await served(async () => {
    assertBytes(await entry.read(100_000, 10), local.subarray(100_000, 100_010), 'read');
    assertBytes(await entry.read(100_010, 100), local.subarray(100_010, 100_110), 'read from the cached block');
    assertBytes(await entry.read(200_000, 1 << 20), local.subarray(200_000, 200_000 + (1 << 20)), 'large read');
  });
  assert.equal(requests, 2);
  assert.equal(bytes, 4096 + (1 << 20));
  await assert.rejects(source.prefetch([{ offset: 0, size: local.byteLength + 1 }]), (e) => e.code === 'INVALID_ARGUMENT');
  assert.throws(() => entry.copyTo(new Uint8Array(8), 0, 300_000, 8), (e) => e.code === 'RANGE_NOT_FETCHED' && e.ranges[0].offset === 300_000);
  await source.prefetch([{ offset: 300_000, size: 8 }]);
  const dst = new Uint8Array(8);
  entry.copyTo(dst, 0, 300_000, 8);
  assertBytes(dst, local.subarray(300_000, 300_008), 'prefetched');
});

test('merging equal-sized remote entries: what dedup compares is fetched on demand (withFetchedRanges), same bytes as local', async () => {
  const fts = new et.FlatTensorSerializer();
  const same = patternBytes(512 * KiB, 42);
  writeFileSync(file('a.ptd'), fts.serialize({ buffers: [same], namedData: { a: { bufferIndex: 0 } } }));
  writeFileSync(file('b.ptd'), fts.serialize({ buffers: [same], namedData: { b: { bufferIndex: 0 } } }));
  const s = await startRangeServer({ 'a.ptd': file('a.ptd'), 'b.ptd': file('b.ptd'), 'model.pte': file('model.pte') });
  try {
    const options = { output: 'artifact', mergeTag: 'merged' };
    const local = et.repack(et.openFile(file('model.pte')), { ...options, merge: [et.openFile(file('a.ptd')), et.openFile(file('b.ptd'))] });
    const open = (name) => et.openUrl(s.url('f', name));
    const inputs = [await open('model.pte'), await open('a.ptd'), await open('b.ptd')];
    const repack = () => et.repack(inputs[0], { ...options, merge: inputs.slice(1) });
    assert.throws(repack, (e) => e.code === 'RANGE_NOT_FETCHED' && e.ranges.length === 1);
    const remote = await et.withFetchedRanges(repack);
    assertBytes(await remote.ptd.merged.bytes(), local.ptd.merged.toBytes(), 'merged .ptd');
    assertBytes(await remote.pte.bytes(), local.pte.toBytes(), '.pte');
  } finally {
    await s.close();
  }
});
