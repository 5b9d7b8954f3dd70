// The CLI with http(s):// inputs against a loopback server that counts the
// bytes it sends: inspect of a 1 GiB .ptd, validate and repack giving what
// local files give, headers and HF_TOKEN sent only where they belong.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { closeSync, ftruncateSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, CONFORMANCE, NPM, loadApi } from './helpers/common.mjs';
import { startRangeServer } from './helpers/range-server.mjs';

const et = await loadApi();
const { Artifact } = await import(join(NPM, 'index.node.mjs'));
const { hubAwareHeaders, isHubHost, parseHeaders } = await import(join(NPM, 'src', 'cli', 'inputs.mjs'));
const tmp = mkdtempSync(join(tmpdir(), 'etpack-remote-cli-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
const MiB = 1 << 20;
const GiB = 2 ** 30;

// A 1 GiB .ptd as a sparse file: everything but its last (1 GiB, zero) segment written.
function writeSparsePtd(path) {
  const artifact = new et.FlatTensorSerializer().serialize({
    buffers: [new Uint8Array(64).fill(3), new Artifact([{ zeros: GiB }], GiB)],
    namedData: { small: { bufferIndex: 0 }, huge: { bufferIndex: 1, alignment: 64 } },
  }, { output: 'artifact' });
  const head = artifact.size - GiB;
  const bytes = new Uint8Array(head);
  artifact[Symbol.for('executorch-pack.source')]().copyTo(bytes, 0, 0, head);
  const fd = openSync(path, 'w');
  writeSync(fd, bytes);
  ftruncateSync(fd, artifact.size);
  closeSync(fd);
}

writeSparsePtd(join(tmp, 'big.ptd'));
const CASE = join(CONFORMANCE, '13_everything');
const server = await startRangeServer({
  'big.ptd': join(tmp, 'big.ptd'), 'out.pte': join(CASE, 'out.pte'), 'model.ptd': join(CASE, 'model.ptd'), 'shard_b.ptd': join(CASE, 'shard_b.ptd'),
});
after(() => server.close());

function run(args, env = {}) {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, HF_TOKEN: '', ...env }, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      resolve({ status: error ? error.code : 0, stdout, stderr });
    });
  });
}

test('inspect URL of a 1 GiB .ptd prints the summary after fetching under 1 MiB', async (t) => {
  server.reset();
  const url = server.url('f', 'big.ptd');
  const r = await run(['inspect', url]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /ExecuTorch data file \(\.ptd\), 1\.0 GiB/);
  assert.match(r.stdout, /huge/);
  assert.ok(server.stats.bytes < MiB, `${server.stats.bytes} bytes served`);
  assert.match(r.stderr, new RegExp(`fetched .*\\(${server.stats.bytes} bytes\\) of ${url.replace(/[.]/g, '\\.')}`));
  t.diagnostic(`CLI inspect ${url}: ${server.stats.bytes} bytes served in ${server.stats.requests} request(s)`);
  const [local, remote] = await Promise.all([run(['inspect', join(tmp, 'big.ptd'), '--json']), run(['inspect', url, '--json'])]);
  assert.deepEqual(JSON.parse(remote.stdout), JSON.parse(local.stdout));
});

test('validate URLs prints the report local files give', async () => {
  const [local, remote] = await Promise.all([
    run(['validate', join(CASE, 'out.pte'), join(CASE, 'model.ptd'), join(CASE, 'shard_b.ptd'), '--json']),
    run(['validate', server.url('f', 'out.pte'), server.url('redirect', 'model.ptd'), server.url('norange', 'shard_b.ptd'), '--json'])]);
  assert.equal(remote.status, local.status, remote.stderr);
  // The same report, each result naming its files as they were given.
  const named = (text) => {
    const report = JSON.parse(text);
    for (const r of report.results ?? []) r.files = r.files.map((f) => f.split('/').pop());
    return report;
  };
  assert.deepEqual(named(remote.stdout), named(local.stdout));
  assert.match(remote.stderr, /whole-file download/);
});

test('repack URL -o local writes the bytes a local repack writes, with progress', async () => {
  const args = ['--externalize=moved', '--json'];
  server.reset();
  // The .pte with the .ptd it uses (its data, carried as model.ptd).
  const [local, remote] = await Promise.all([run(['repack', join(CASE, 'out.pte'), join(CASE, 'model.ptd'), '-o', join(tmp, 'local', 'out.pte'), ...args]), run(['repack', server.url('f', 'out.pte'), server.url('f', 'model.ptd'), '-o', join(tmp, 'remote', 'out.pte'), ...args])]);
  assert.equal(local.status, 0, local.stderr);
  assert.equal(remote.status, 0, remote.stderr);
  for (const name of readdirSync(join(tmp, 'local'))) {
    assert.deepEqual(readFileSync(join(tmp, 'remote', name)), readFileSync(join(tmp, 'local', name)), name);
  }
  assert.match(remote.stderr, /writing .*out\.pte: .* \(100\.0%\)/);
  assert.match(remote.stderr, /fetched .* of http:\/\/127\.0\.0\.1:\d+\/f\/out\.pte/);
});

test('--header goes to the URL\'s origin; HF_TOKEN never to a non-Hub host; errors show neither', async () => {
  server.reset();
  const r = await run(['inspect', '--header', 'X-Api-Key: k-123', server.url('f', 'out.pte')], { HF_TOKEN: 'hf_secret' });
  assert.equal(r.status, 0, r.stderr);
  assert.ok(server.stats.headers.every((h) => h['x-api-key'] === 'k-123' && h.authorization === undefined));
  const [missing, bad] = await Promise.all([
    run(['inspect', '--header', 'Authorization: Bearer hidden-value', `${server.base}/none/x.pte`]),
    run(['inspect', '--header', 'no colon secret', server.url('f', 'out.pte')])]);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /HTTP_ERROR.*404/);
  assert.doesNotMatch(missing.stderr, /hidden-value/);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--header #1/);
  assert.doesNotMatch(bad.stderr, /secret/);
});

test('header policy: Hub hosts get HF_TOKEN over https only; other headers stay with their origin', () => {
  for (const host of ['huggingface.co', 'hf.co', 'cdn-lfs.hf.co', 'cas-bridge.xethub.hf.co', 'cdn-lfs-us-1.huggingface.co']) assert.ok(isHubHost(host), host);
  for (const host of ['evilhuggingface.co', 'hf.co.evil.com', 'example.com', 'huggingface.com']) assert.ok(!isHubHost(host), host);
  const headers = parseHeaders(['X-A: 1', 'X-B:two words ']);
  assert.deepEqual(headers, [['X-A', '1'], ['X-B', 'two words']]);
  const policy = hubAwareHeaders('https://huggingface.co/org/repo/resolve/main/model.pte', headers, 'hf_tok');
  assert.deepEqual(policy('https://huggingface.co/org/repo/resolve/main/model.pte'), { Authorization: 'Bearer hf_tok', 'X-A': '1', 'X-B': 'two words' });
  assert.deepEqual(policy('https://cas-bridge.xethub.hf.co/xet/abc?sig=1'), { Authorization: 'Bearer hf_tok' });
  assert.deepEqual(policy('http://huggingface.co/x'), {}, 'no token over plain http');
  assert.deepEqual(policy('https://s3.amazonaws.com/bucket/x'), {}, 'nothing to other hosts');
  const other = hubAwareHeaders('https://example.com/m.pte', headers, 'hf_tok');
  assert.deepEqual(other('https://example.com/m.pte'), { 'X-A': '1', 'X-B': 'two words' });
  assert.deepEqual(other('https://huggingface.co/x'), { Authorization: 'Bearer hf_tok' }, 'a redirect to the Hub: the token, not the headers');
});
