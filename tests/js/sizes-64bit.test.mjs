// Sizes past 32 bits: a .pte file of exactly 4 GiB, 4 GiB + 1 and 1 TiB
// (sparse files: the program, then zeros) is validated and inspected from its
// header, never as "eh00 header unreadable" (a 64 -> 32-bit cast in the core
// made such sizes 0 or 1 in wasm), and the zeros are reported as trailing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadApi } from './helpers/common.mjs';
import { syntheticProgram, patternBytes } from './helpers/programs.mjs';

const et = await loadApi();
const tmp = mkdtempSync(join(tmpdir(), 'etpack-sizes-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

const GiB = 2 ** 30;
// A program with a constant segment: its file has an eh00 header.
const { pte } = et.serializeForExecutorch({ program: syntheticProgram({ constants: [patternBytes(4096, 7)] }) });

function sparse(name, size) {
  const path = join(tmp, name);
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, pte);
    ftruncateSync(fd, size);
  } finally {
    closeSync(fd);
  }
  return path;
}

for (const [what, size] of [['4 GiB', 4 * GiB], ['4 GiB + 1', 4 * GiB + 1], ['1 TiB', 1024 * GiB]]) {
  test(`a .pte padded to ${what} is read from its header; the rest is trailing bytes`, () => {
    const path = sparse(`${what.replace(/\W/g, '_')}.pte`, size);
    const report = et.validate(path);
    assert.deepEqual(report.errors, [], JSON.stringify(report.errors));
    const trailing = report.warnings.find((f) => f.code === 'TRAILING_BYTES');
    assert.ok(trailing, JSON.stringify(report.warnings));
    assert.match(trailing.message, new RegExp(String(size - pte.byteLength)));
    const summary = et.inspect(path);
    assert.equal(summary.fileSize, size);
    const last = summary.segmentMap.at(-1);
    assert.equal(last.end, size);
    rmSync(path);
  });
}

// A .pte without eh00 (add.pte) padded with zeros: its flatbuffer ends where
// it verifies; the rest is TRAILING_BYTES, never read (a 1.4 KB program
// padded to 1 GiB took 9.9 s and 2.1 GiB when it was read whole).
test('a .pte without eh00 padded to 1 GiB and 5 GiB: the padding is trailing bytes and is not read', async () => {
  const { ARTIFACTS } = await import('./helpers/common.mjs');
  const { readFileSync } = await import('node:fs');
  const add = readFileSync(join(ARTIFACTS, 'add.pte'));
  for (const size of [GiB, 5 * GiB]) {
    const path = join(tmp, `headless-${size}.pte`);
    const fd = openSync(path, 'w');
    writeSync(fd, add);
    ftruncateSync(fd, size);
    closeSync(fd);
    const file = et.openFile(path);
    const report = et.validate(file);
    assert.deepEqual(report.errors, [], JSON.stringify(report.errors));
    const trailing = report.warnings.find((f) => f.code === 'TRAILING_BYTES');
    assert.ok(trailing && trailing.offset <= add.byteLength && trailing.offset > add.byteLength - 16, JSON.stringify(report.warnings));
    const summary = et.inspect(file);
    assert.equal(summary.segmentMap.at(-1).kind, 'unused');
    assert.ok(file.bytesRead < 4 << 20, `${file.bytesRead} bytes read`);
    file.close();
    rmSync(path);
  }
});
