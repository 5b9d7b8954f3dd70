// inspect() on files with long lists (issue 11): the core replies in
// columns (npm/src/marshal/inspect-reply.mjs) and the result keeps the documented
// shape; the CLI's tables show the first rows and say how many more,
// --json prints every row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { loadApi } from './helpers/common.mjs';
import { runCli } from './helpers/cli.mjs';
import { manyKeysPtd, manySegmentsPte, sharedKeyPtd } from './helpers/hostile_files.mjs';

const et = await loadApi();
const tmp = mkdtempSync(join(tmpdir(), 'etpack-inspect-large-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

const keysOf = (o) => Object.keys(o).join(' ');

test('a .ptd with keys on two buffers: named data in columns, rows in the documented shape, map owners equal the segment\'s, not shared', () => {
  const namedData = {};
  for (let i = 0; i < 300; i++) namedData[`k${i}`] = { bufferIndex: i % 2 };
  Object.defineProperty(namedData, '__proto__', { value: { bufferIndex: 1 }, enumerable: true });  // an ordinary key
  const ptd = new et.FlatTensorSerializer().serialize({ buffers: [new Uint8Array([1, 2, 3, 4]), new Uint8Array(8)], namedData });
  const s = et.inspect(ptd);
  const named = s.namedData;
  assert.equal(keysOf(named), 'count key segment size layout layouts');
  assert.equal(named.count, 301);
  for (const column of ['key', 'segment', 'size', 'layout']) assert.equal(named[column].length, 301, column);
  assert.deepEqual([named.key[0], named.segment[0], named.size[0], named.layout[0]], ['k0', 0, 4, null]);
  assert.deepEqual([named.key[1], named.segment[1], named.size[1], named.layout[1]], ['k1', 1, 8, null]);
  assert.deepEqual(named.layouts, []);
  assert.equal(named.key[300], '__proto__');
  assert.equal(s.segments.length, 2);
  assert.equal(keysOf(s.segments[0]), 'index offset size kind owners ownerCount');
  // The first 3 entries by name, every entry counted (issue 29).
  assert.deepEqual(s.segments[0].owners, ['named_data[0] k0', 'named_data[2] k2', 'named_data[4] k4']);
  assert.deepEqual(s.segments[1].owners, ['named_data[1] k1', 'named_data[3] k3', 'named_data[5] k5']);
  assert.deepEqual(s.segments.map((g) => g.ownerCount), [150, 151]);
  assert.equal(named.key.filter((k, i) => named.segment[i] === 1).length, 151);
  const ranges = s.segmentMap.filter((r) => r.segment !== null);
  assert.equal(ranges.length, 2);
  for (const r of s.segmentMap) assert.equal(keysOf(r), 'start end size kind segment owners ownerCount clipped');
  for (const r of ranges) {
    assert.deepEqual(r.owners, s.segments[r.segment].owners);
    assert.equal(r.ownerCount, s.segments[r.segment].ownerCount);
    assert.notEqual(r.owners, s.segments[r.segment].owners, 'each range has its own array');
  }
  let cursor = 0;
  for (const r of s.segmentMap) {
    assert.equal(r.start, cursor);
    assert.equal(r.size, r.end - r.start);
    cursor = r.end;
  }
  assert.equal(cursor, s.fileSize);
});

test('a .pte with 2,000 segments: one row per segment and named-data entry, sizes exact', () => {
  const s = et.inspect(manySegmentsPte(et, 2000));
  assert.equal(s.segments.length, 2000);
  assert.equal(keysOf(s.namedData), 'count key segment size');
  assert.equal(s.namedData.count, 2000);
  assert.deepEqual([s.namedData.key[1999], s.namedData.segment[1999], s.namedData.size[1999]], ['w1999', 1999, 72]);
  assert.deepEqual(s.segments[7].owners, ['named_data[7] w7']);
  assert.equal(s.segments[7].ownerCount, 1);
  assert.equal(s.segmentMap.filter((r) => r.kind === 'namedData').length, 2000);
  assert.ok(s.segmentMap.every((r) => Array.isArray(r.owners)));
});

test('CLI inspect: long tables show their first rows and how many more; --json has them all', async () => {
  const file = join(tmp, 'keys.ptd');
  writeFileSync(file, manyKeysPtd(et, 100));
  const [human, json] = await Promise.all([runCli(['inspect', file]), runCli(['inspect', file, '--json'])]);
  assert.equal(human.status, 0, human.stderr);
  assert.match(human.stdout, /Named data \(100\)/);
  assert.match(human.stdout, /\n {2}k39 /);
  assert.doesNotMatch(human.stdout, /\n {2}k40 /);
  assert.match(human.stdout, /… and 60 more rows \(--json prints all\)/);
  assert.match(human.stdout, /named_data\[0\] k0, named_data\[1\] k1, named_data\[2\] k2 and 97 more/);
  assert.equal(json.status, 0, json.stderr);
  const doc = JSON.parse(json.stdout);
  assert.equal(doc.namedData.count, 100);
  assert.deepEqual(doc.segments[0].owners, ['named_data[0] k0', 'named_data[1] k1', 'named_data[2] k2']);
  assert.equal(doc.segments[0].ownerCount, 100);
  assert.deepEqual(doc.namedData.key, Array.from({ length: 100 }, (_, i) => `k${i}`));
  assert.deepEqual(doc.namedData.segment, new Array(100).fill(0));
  // Each column is one line (not one line per entry).
  assert.match(json.stdout, /\n {4}"key": \["k0","k1",[^\n]*,"k99"\],\n {4}"segment": \[0,0,[^\n]*\],\n/);
});

// Keys and owners come joined into one string after the reply's JSON and
// are sliced by UTF-16 lengths: keys of any code point (astral, NUL, quote,
// newline, digits that would look like big numbers when joined) come back
// exactly, each in its own row.
test('named-data keys of any code point come back exactly from the joined names', () => {
  const keys = ['é', '😀x', 'a\0b', '"\\\n', '', '1234567890', '1234567890123456', '\u2028', 'z'];
  const namedData = Object.fromEntries(keys.map((k, i) => [k, { bufferIndex: i % 2 }]));
  const ptd = new et.FlatTensorSerializer().serialize({ buffers: [new Uint8Array(4), new Uint8Array(8)], namedData });
  const s = et.inspect(ptd);
  const written = Object.keys(namedData);  // the file's order (an index-like key comes first)
  assert.deepEqual([...s.namedData.key].sort(), [...keys].sort());
  assert.deepEqual(s.namedData.key, written);
  const owners = s.namedData.key.map((k, i) => [`named_data[${i}] ${written[i]}`, s.namedData.segment[i]]);
  assert.deepEqual(s.segments.map((g) => g.owners), [0, 1].map((b) => owners.filter(([, at]) => at === b).map(([o]) => o).slice(0, 3)));
  assert.deepEqual(s.segments.map((g) => g.ownerCount), [4, 5]);
});

// A segment 100,000 entries share (issue 29): its owners name the first 3,
// ownerCount counts all, and --json holds no name per entry.
test('a segment many entries share: owners name the first 3, ownerCount counts them all', async () => {
  const count = 100_000;
  const file = join(tmp, 'shared.ptd');
  writeFileSync(file, sharedKeyPtd(count));
  const s = et.inspect(sharedKeyPtd(count));
  assert.equal(s.namedData.count, count);
  assert.deepEqual(s.segments.map((g) => [g.owners, g.ownerCount]),
    [[['named_data[0] w', 'named_data[1] w', 'named_data[2] w'], count]]);
  const range = s.segmentMap.find((r) => r.segment === 0);
  assert.deepEqual([range.owners, range.ownerCount], [s.segments[0].owners, count]);
  const [human, json] = await Promise.all([runCli(['inspect', file]), runCli(['inspect', file, '--json'])]);
  assert.equal(human.status, 0, human.stderr);
  assert.match(human.stdout, /named_data\[0\] w, named_data\[1\] w, named_data\[2\] w and 99,997 more/);
  assert.equal(json.status, 0, json.stderr);
  assert.equal(json.stdout.match(/named_data\[/g).length, 6, 'three names in segments, three in the map');
  assert.equal(JSON.parse(json.stdout).segments[0].ownerCount, count);
});

// The same file's repeated key is one DUPLICATE_KEY finding (issue 29), not
// one per entry: at the first repeat, counting every repeat.
test('a key 100,000 entries share is one DUPLICATE_KEY finding that counts them', async () => {
  const count = 100_000;
  const r = et.validate(sharedKeyPtd(count));
  const repeats = r.errors.filter((f) => f.code === 'DUPLICATE_KEY');
  assert.equal(repeats.length, 1);
  assert.equal(repeats[0].path, 'named_data[1].key');
  assert.equal(repeats[0].message,
    `named_data[1] repeats the key 'w' of named_data[0]; ${count - 1} entries repeat it: named_data[1], named_data[2], named_data[3] and ${count - 4} more`);
  assert.equal(r.warnings.filter((f) => f.code === 'TOO_MANY_FINDINGS').length, 0);
});
