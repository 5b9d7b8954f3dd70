// One abort convention (issue 25): every `signal` option, wherever it is
// given, ends the call with EtpackError ABORTED whose `cause` is the
// signal's reason — never the bare reason, never another code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ARTIFACTS, CONFORMANCE, NPM, loadApi } from './helpers/common.mjs';

const { EtpackError, Artifact } = await import(join(NPM, 'index.node.mjs'));
const et = await loadApi();
const tmp = mkdtempSync(join(tmpdir(), 'etpack-abort-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

const ADD = join(ARTIFACTS, 'add.pte');
const EXTCONST = join(CONFORMANCE, '11_external_constants_only');
const REASON = new Error('user pressed stop');
const abortedSignal = () => {
  const c = new AbortController();
  c.abort(REASON);
  return c.signal;
};
const isAborted = (e) => {
  assert.ok(e instanceof EtpackError, `an EtpackError, got ${e}`);
  assert.equal(e.code, 'ABORTED');
  assert.equal(e.cause, REASON, 'the signal\'s reason is the cause');
  assert.match(e.message, /was aborted$/);
  return true;
};

test('synchronous operations: an aborted signal is ABORTED before anything is done', () => {
  assert.throws(() => et.repack(ADD, { signal: abortedSignal() }), isAborted);
  const { program } = et.deserializePteBinary(ADD);
  assert.throws(() => et.serializePteBinary({ program }, {}, { signal: abortedSignal() }), isAborted);
});

test('output bytes: an abort from inside onProgress stops the copy', () => {
  const c = new AbortController();
  const big = new Artifact([{ bytes: new Uint8Array(20 << 20) }], 20 << 20);
  const seen = [];
  assert.throws(() => big.toBytes({ signal: c.signal, onProgress: (p) => { seen.push(p.bytesWritten); c.abort(REASON); } }), isAborted);
  assert.deepEqual(seen, [8 << 20], 'stopped after the first report');
});

test('Artifact: bytes(), chunks(), stream() and writeTo() with an aborted signal', async () => {
  const artifact = et.repack(ADD, { output: 'artifact' }).pte;
  await assert.rejects(artifact.bytes({ signal: abortedSignal() }), isAborted);
  await assert.rejects((async () => { for await (const _ of artifact.chunks({ signal: abortedSignal() })); })(), isAborted);
  await assert.rejects(artifact.stream({ signal: abortedSignal() }).getReader().read(), isAborted);
  const out = join(tmp, 'never.pte');
  await assert.rejects(artifact.writeTo(out, { signal: abortedSignal() }), isAborted);
  assert.equal(existsSync(out), false);
});

test('openBlob and openUrl', async () => {
  await assert.rejects(et.openBlob(new Blob([readFileSync(ADD)]), { signal: abortedSignal() }), isAborted);
  await assert.rejects(et.openUrl('http://127.0.0.1:9/model.pte', { signal: abortedSignal() }), isAborted);
});

test('diff, ptdFromWeights and pteWithWeights take a signal: ABORTED before, and as soon as it aborts', async () => {
  await assert.rejects(et.diff(ADD, ADD, { signal: abortedSignal() }), isAborted);
  await assert.rejects(et.ptdFromWeights(join(EXTCONST, 'out.pte'), [new Uint8Array(8)], { signal: abortedSignal() }), isAborted);
  await assert.rejects(et.pteWithWeights(ADD, [new Uint8Array(8)], { signal: abortedSignal() }), isAborted);
  // Aborted while opening a Blob argument.
  const c = new AbortController();
  const running = et.diff(new Blob([readFileSync(ADD)]), ADD, { signal: c.signal });
  c.abort(REASON);
  await assert.rejects(running, isAborted);
  // Not aborted: the signal changes nothing.
  const same = await et.diff(ADD, ADD, { signal: new AbortController().signal });
  assert.equal(same.identical, true);
});
