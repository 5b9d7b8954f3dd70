// Byte-accurate progress of every long write (issue 25): a large in-memory
// artifact is reported as it is written, in steps of at most 8 MiB, each
// count once, ending at the exact size; never twice at 100%.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NPM } from './helpers/common.mjs';

const { Artifact } = await import(join(NPM, 'index.node.mjs'));
const tmp = mkdtempSync(join(tmpdir(), 'etpack-progress-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

const MiB = 1 << 20;
const STEP = 8 * MiB;  // artifact.mjs CHUNK
// A 100-byte head, 40 MiB + 5 of caller bytes (one piece), 3 zero bytes.
const head = new Uint8Array(100).fill(7);
const body = new Uint8Array(40 * MiB + 5);
body[0] = 1;
body[body.length - 1] = 2;
const SIZE = head.length + body.length + 3;
const artifact = () => new Artifact([{ bytes: head }, { bytes: body }, { zeros: 3 }], SIZE);

function checkReports(reports, what) {
  assert.ok(reports.length >= 5, `${what}: ${reports.length} reports for ${SIZE} bytes`);
  assert.ok(reports.every((r) => r.totalBytes === SIZE), `${what}: totalBytes`);
  let before = 0;
  for (const r of reports) {
    assert.ok(r.bytesWritten > before || (r.bytesWritten === 0 && before === 0 && SIZE === 0), `${what}: strictly increasing (${before} -> ${r.bytesWritten})`);
    assert.ok(r.bytesWritten - before <= STEP + 4096, `${what}: a step of ${r.bytesWritten - before} bytes`);
    before = r.bytesWritten;
  }
  assert.equal(reports.at(-1).bytesWritten, SIZE, `${what}: ends at the exact size`);
  assert.equal(reports.filter((r) => r.bytesWritten === SIZE).length, 1, `${what}: 100% once`);
}

test('writeTo reports a 40 MiB byte-array piece as it goes, once at 100%', async () => {
  const reports = [];
  const path = join(tmp, 'big.bin');
  const written = await artifact().writeTo(path, { onProgress: (p) => reports.push(p) });
  assert.equal(written, SIZE);
  assert.equal(statSync(path).size, SIZE);
  checkReports(reports, 'writeTo');
});

test('toBytes, bytes() and stream() report the same way', async () => {
  const viaToBytes = [];
  const bytes = artifact().toBytes({ onProgress: (p) => viaToBytes.push(p) });
  assert.equal(bytes.byteLength, SIZE);
  assert.equal(bytes[100], 1);
  assert.equal(bytes[SIZE - 4], 2);
  checkReports(viaToBytes, 'toBytes');

  const viaBytes = [];
  assert.equal((await artifact().bytes({ onProgress: (p) => viaBytes.push(p) })).byteLength, SIZE);
  checkReports(viaBytes, 'bytes()');

  const viaStream = [];
  let streamed = 0;
  for await (const chunk of artifact().stream({ onProgress: (p) => viaStream.push(p) })) streamed += chunk.byteLength;
  assert.equal(streamed, SIZE);
  checkReports(viaStream, 'stream()');
});

test('chunks() are at most chunkSize bytes, byte-array pieces as views', async () => {
  const sizes = [];
  let sawView = false;
  for await (const chunk of artifact().chunks({ chunkSize: 3 * MiB })) {
    sizes.push(chunk.byteLength);
    if (chunk.buffer === body.buffer) sawView = true;
  }
  assert.ok(sizes.every((n) => n > 0 && n <= 3 * MiB), `chunk sizes ${Math.max(...sizes)}`);
  assert.equal(sizes.reduce((a, b) => a + b, 0), SIZE);
  assert.ok(sawView, 'the caller\'s bytes are not copied');
});

test('an empty artifact reports 0 of 0 once', async () => {
  const reports = [];
  await new Artifact([], 0).writeTo(join(tmp, 'empty.bin'), { onProgress: (p) => reports.push(p) });
  assert.deepEqual(reports, [{ bytesWritten: 0, totalBytes: 0 }]);
  const viaToBytes = [];
  new Artifact([], 0).toBytes({ onProgress: (p) => viaToBytes.push(p) });
  assert.deepEqual(viaToBytes, [{ bytesWritten: 0, totalBytes: 0 }]);
});
