// Remote inputs bounded by what matters (issue 29): the head a server's file
// claims is capped (maxHeadBytes, SOURCE_TOO_LARGE naming the size) before
// anything is fetched or allocated; the version pin holds when a later
// answer drops its ETag/Last-Modified (SOURCE_CHANGED); a trickling server
// meets an overall deadline (TIMEOUT); signed-URL queries never reach text
// output; every URL problem is a coded error saying what is wrong.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, CONFORMANCE, loadApi } from './helpers/common.mjs';
import { runCli } from './helpers/cli.mjs';

const et = await loadApi();
const ADD = readFileSync(join(ARTIFACTS, 'add.pte'));  // no eh00 header: its head is the whole file
const WITH_HEADER = readFileSync(join(CONFORMANCE, '02_constants_default', 'out.pte'));

// A loopback server whose answers `handler(req, res, state)` writes.
async function serve(handler) {
  const state = { requests: 0 };
  const server = createServer((req, res) => {
    state.requests += 1;
    handler(req, res, state);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: (path) => `http://127.0.0.1:${server.address().port}${path}`, state, close: () => { server.closeAllConnections(); server.close(); } };
}

// A 206 answer for the asked range of `bytes`, claiming the object is `total` long.
function sendRange(req, res, bytes, total, headers = {}) {
  const [, a, b] = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? 'bytes=0-0');
  const start = Number(a);
  const end = Math.min(Number(b) + 1, start + Math.max(0, bytes.byteLength - start));
  res.writeHead(206, { 'Content-Range': `bytes ${start}-${end - 1}/${total}`, 'Content-Length': String(end - start), ...headers });
  res.end(bytes.subarray(start, end));
}

const assertCode = async (promise, code, pattern) => assert.rejects(promise, (e) => {
  assert.equal(e.code, code, e.message);
  if (pattern) assert.match(e.message, pattern);
  return true;
});

test('a head larger than maxHeadBytes is SOURCE_TOO_LARGE naming the size, before it is fetched', async (t) => {
  // add.pte has no eh00 header; the server claims it is 1 TiB or 3 GiB (its
  // bytes, then zeros): its flatbuffer ends where it verifies, the rest is
  // trailing bytes, never fetched.
  for (const total of [2 ** 40, 3 * 2 ** 30]) {
    const server = await serve((req, res) => {
      const [, a] = /bytes=(\d+)-/.exec(req.headers.range ?? 'bytes=0-');
      if (Number(a) === 0) sendRange(req, res, ADD, total, { ETag: '"1"' });
      else {
        const [, s, e] = /bytes=(\d+)-(\d+)/.exec(req.headers.range);
        res.writeHead(206, { 'Content-Range': `bytes ${s}-${e}/${total}`, 'Content-Length': String(Number(e) - Number(s) + 1), ETag: '"1"' });
        res.end(Buffer.alloc(Number(e) - Number(s) + 1));  // the zeros
      }
    });
    t.after(server.close);
    const source = await et.openUrl(server.url('/m.pte'));
    assert.ok(source.bytesFetched < (1 << 20), `${source.bytesFetched} bytes fetched`);
    const report = et.validate(source);
    assert.deepEqual(report.errors, []);
    assert.ok(report.warnings.some((f) => f.code === 'TRAILING_BYTES'), JSON.stringify(report.warnings));
  }
  // An eh00 header claiming a 3 GiB program: SOURCE_TOO_LARGE, with a smaller cap too.
  const big = Buffer.from(WITH_HEADER);
  big.writeBigUInt64LE(3n * 2n ** 30n, 16);
  const server = await serve((req, res) => sendRange(req, res, big, 4 * 2 ** 30, { ETag: '"1"' }));
  t.after(server.close);
  await assertCode(et.openUrl(server.url('/m.pte')), 'SOURCE_TOO_LARGE', /3221225472 bytes/);
  await assertCode(et.openUrl(server.url('/m.pte'), { maxHeadBytes: 1 << 20 }), 'SOURCE_TOO_LARGE', /maxHeadBytes \(1048576\)/);
});

test('a later answer without the pinning ETag or Last-Modified is SOURCE_CHANGED', async (t) => {
  for (const pin of [{ ETag: '"v1"' }, { 'Last-Modified': 'Mon, 01 Jan 2024 00:00:00 GMT' }]) {
    const server = await serve((req, res, state) => sendRange(req, res, ADD, ADD.byteLength, state.requests === 1 ? pin : {}));
    t.after(server.close);
    // The second request (the rest of the head, the tail or the data) meets it.
    const attempt = async () => {
      const source = await et.openUrl(server.url('/add.pte'), { headBytes: 64, blockSize: 64, padding: false });
      return et.repack(source, { output: 'artifact' }).pte.bytes();
    };
    await assertCode(attempt(), 'SOURCE_CHANGED', /no longer sends the ETag or Last-Modified/);
    assert.ok(server.state.requests >= 2);
  }
});

test('a server trickling one byte at a time meets the request deadline (TIMEOUT)', async (t) => {
  const server = await serve((req, res) => {
    res.writeHead(206, { 'Content-Range': 'bytes 0-65535/1000000', 'Content-Length': '65536', ETag: '"1"' });
    const timer = setInterval(() => res.write(Buffer.from([0])), 50);  // never idle for 300 ms
    res.on('close', () => clearInterval(timer));
  });
  t.after(server.close);
  const started = Date.now();
  await assertCode(et.openUrl(server.url('/add.pte'), { timeoutMs: 300, minBytesPerSecond: 1 << 20 }), 'TIMEOUT', /did not complete within 3\d\d ms/);
  assert.ok(Date.now() - started < 5000);
});

test('URL problems are coded errors that say what is wrong', async (t) => {
  await assertCode(et.openUrl('http://[::1'), 'INVALID_ARGUMENT', /not a valid URL.*IPv6/);
  await assertCode(et.openUrl('http://user:secret@127.0.0.1:9/x.pte'), 'INVALID_ARGUMENT', /user name or password/);
  await assertCode(et.openUrl('ftp://127.0.0.1/x.pte'), 'INVALID_ARGUMENT', /only http\(s\)/);
  const server = await serve((req, res) => {
    if (req.url.startsWith('/bad-location')) res.writeHead(302, { Location: 'http://[::1' }).end();
    else sendRange(req, res, ADD, ADD.byteLength, { ETag: '"1"' });
  });
  t.after(server.close);
  await assertCode(et.openUrl(server.url('/add.pte'), { headers: { 'X-Token': 'caf\u00e9 \u2603' } }), 'INVALID_ARGUMENT', /X-Token.*Latin-1/);
  await assertCode(et.openUrl(server.url('/bad-location')), 'HTTP_ERROR', /Location that is not a valid URL/);
  for (const e of [await et.openUrl('http://user:secret@127.0.0.1:9/x.pte').catch((x) => x)]) assert.doesNotMatch(e.message, /secret/);
  // The CLI: exit 2, coded, for each.
  for (const url of ['http://[::1', 'http://user:secret@127.0.0.1:9/x.pte', server.url('/bad-location')]) {
    const r = await runCli(['inspect', url]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /error \[(INVALID_ARGUMENT|HTTP_ERROR)\]/);
    assert.doesNotMatch(r.stderr, /secret|at .*\.mjs/);
  }
  const bad = await runCli(['inspect', server.url('/add.pte'), '--timeout', 'soon']);
  assert.equal(bad.status, 2, bad.stderr);
});

test('text output never prints a signed URL\'s query; --timeout is accepted', async (t) => {
  const server = await serve((req, res) => sendRange(req, res, ADD, ADD.byteLength, { ETag: '"1"' }));
  t.after(server.close);
  const signed = server.url('/add.pte?X-Amz-Signature=SECRETSIG&X-Amz-Credential=KEY');
  for (const args of [['inspect', signed], ['validate', signed], ['diff', signed, signed]]) {
    const r = await runCli([...args, '--timeout', '20']);
    assert.ok(r.status === 0, `${args[0]}: ${r.status} ${r.stderr}`);
    assert.doesNotMatch(r.stdout + r.stderr, /SECRETSIG|KEY/, args[0]);
    assert.match(r.stdout, /add\.pte/, args[0]);
  }
});
