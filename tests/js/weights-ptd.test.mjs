// New weights without re-exporting: ptdFromWeights / exportWeights (API) and
// the weights / export-weights commands, with safetensors files the tests
// write, including hostile headers and a sharded checkpoint.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CONFORMANCE, loadApi } from './helpers/common.mjs';
import { runCli, scratch } from './helpers/scratch.mjs';
import { float32, safetensorsBytes } from './helpers/safetensors.mjs';
import { startRangeServer } from './helpers/range-server.mjs';

const et = await loadApi();
const EVERYTHING = join(CONFORMANCE, '13_everything');
const EXTCONST = join(CONFORMANCE, '11_external_constants_only');
const { dir: tmp, file } = scratch('etpack-weights-');
const bytesOf = (b) => (b instanceof Uint8Array ? b : b.toBytes());
const run = runCli;
async function rejectsWith(promise, code, pattern) {
  await assert.rejects(promise, (e) => {
    assert.equal(e.code, code, e.message);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

// 13_everything's external tensors: lin.weight f32[3, 3], lin.bias f32[3].
const NEW_WEIGHT = float32([1, 2, 3, 4, 5, 6, 7, 8, 9]);
const NEW_BIAS = float32([-1.5, 0, 2.25]);
const newWeights = (extra = []) => safetensorsBytes([
  { name: 'lin.weight', dtype: 'F32', shape: [3, 3], bytes: NEW_WEIGHT },
  { name: 'lin.bias', dtype: 'F32', shape: [3], bytes: NEW_BIAS },
  ...extra,
]);

test('ptdFromWeights: 13_everything gets new external tensors; validate accepts the pair and the bytes are the new ones', async () => {
  const unusedBytes = new Uint8Array([7, 7, 7, 7]);
  const path = file('new.safetensors', newWeights([{ name: 'head.extra', dtype: 'U8', shape: [4], bytes: unusedBytes }]));
  const r = await et.ptdFromWeights(join(EVERYTHING, 'out.pte'), [path], { tag: 'model' });
  assert.deepEqual(r.written, ['lin.weight', 'lin.bias']);
  assert.deepEqual(r.unused, ['head.extra']);
  assert.equal(r.tag, 'model');
  const report = et.validate(readFileSync(join(EVERYTHING, 'out.pte')),
    { 'model.ptd': r.ptd, 'shard_b.ptd': readFileSync(join(EVERYTHING, 'shard_b.ptd')) });
  assert.equal(report.ok, true, JSON.stringify(report.errors));
  assert.equal(report.warnings.length, 0);
  const back = new et.FlatTensorSerializer().deserialize(r.ptd);
  assert.deepEqual(Object.keys(back.namedData), ['lin.weight', 'lin.bias']);
  assert.deepEqual(bytesOf(back.buffers[back.namedData['lin.weight'].bufferIndex]), NEW_WEIGHT);
  assert.deepEqual(bytesOf(back.buffers[back.namedData['lin.bias'].bufferIndex]), NEW_BIAS);
  assert.deepEqual(back.namedData['lin.weight'].tensorLayout, { scalarType: 6, sizes: [3, 3], dimOrder: [0, 1] });
});

test('export-weights then weights gives a byte-identical .ptd (shared buffers included)', async () => {
  const original = readFileSync(join(EXTCONST, 'model.ptd'));
  const out = et.exportWeights(join(EXTCONST, 'out.pte'), [join(EXTCONST, 'model.ptd')]);
  assert.deepEqual(out.tensors, ['linear.weight', 'linear.bias', 'emb.weight', 'linear2.weight']);
  const path = file('export.safetensors', out.safetensors);
  const r = await et.ptdFromWeights(join(EXTCONST, 'out.pte'), [path], { segmentAlignment: 128 });
  assert.equal(Buffer.compare(Buffer.from(r.ptd), original), 0);
  // The header is upstream's: 8-byte length, space-padded JSON, metadata names the sources.
  const n = Number(Buffer.from(out.safetensors).readBigUInt64LE(0));
  assert.equal(n % 8, 0);
  const header = JSON.parse(Buffer.from(out.safetensors.subarray(8, 8 + n)).toString());
  assert.equal(header.__metadata__['executorch-pack.data'], 'model.ptd');
  assert.equal(header.__metadata__['executorch-pack.program'], 'out.pte');
  assert.deepEqual(header['emb.weight'], { dtype: 'F16', shape: [3, 5], data_offsets: [64, 94] });
});

test('exportWeights: include globs; a program whose external data is not given is an error naming it', async () => {
  const some = et.exportWeights(join(EXTCONST, 'out.pte'), [join(EXTCONST, 'model.ptd')], { include: 'linear*.weight' });
  assert.deepEqual(some.tensors, ['linear.weight', 'linear2.weight']);
  assert.throws(() => et.exportWeights(join(EXTCONST, 'out.pte'), []), (e) => e.code === 'EXTERNAL_DATA_MISSING' && /emb\.weight/.test(e.message));
});

test('every missing tensor, wrong shape and wrong dtype is listed in one WEIGHTS_MISMATCH error', async () => {
  const path = file('bad.safetensors', safetensorsBytes([
    { name: 'linear.weight', dtype: 'F32', shape: [3, 4], bytes: new Uint8Array(48) },
    { name: 'linear.bias', dtype: 'F16', shape: [4], bytes: new Uint8Array(8) },
    { name: 'linear2.weight', dtype: 'F32', shape: [4, 3], bytes: new Uint8Array(48) },
  ]));
  await assert.rejects(et.ptdFromWeights(join(EXTCONST, 'out.pte'), [path]), (e) => {
    assert.equal(e.code, 'WEIGHTS_MISMATCH');
    assert.deepEqual(e.problems.map((p) => [p.name, p.problem]),
      [['linear.weight', 'shape'], ['linear.bias', 'dtype'], ['emb.weight', 'missing']]);
    assert.match(e.message, /emb\.weight/);
    return true;
  });
});

test('rename prefix rules; a name in two checkpoints is an error; __proto__ stays an ordinary name', async () => {
  const a = file('renamed.safetensors', safetensorsBytes([
    { name: 'model.lin.weight', dtype: 'F32', shape: [3, 3], bytes: NEW_WEIGHT },
    { name: '__proto__', dtype: 'U8', shape: [1], bytes: new Uint8Array([1]) },
  ]));
  const b = file('bias.safetensors', safetensorsBytes([{ name: 'lin.bias', dtype: 'F32', shape: [3], bytes: NEW_BIAS }]));
  const r = await et.ptdFromWeights(join(EVERYTHING, 'out.pte'), [a, b], { rename: { 'model.': '' } });
  assert.deepEqual(r.written, ['lin.weight', 'lin.bias']);
  assert.deepEqual(r.unused, ['__proto__']);
  await rejectsWith(et.ptdFromWeights(join(EVERYTHING, 'out.pte'), [b, b]), 'SAFETENSORS_DUPLICATE', /lin\.bias/);
});

test('sharded checkpoint through model.safetensors.index.json', async () => {
  file('model-00001-of-00002.safetensors', safetensorsBytes([{ name: 'lin.weight', dtype: 'F32', shape: [3, 3], bytes: NEW_WEIGHT }]));
  file('model-00002-of-00002.safetensors', safetensorsBytes([{ name: 'lin.bias', dtype: 'F32', shape: [3], bytes: NEW_BIAS }]));
  const index = file('model.safetensors.index.json', JSON.stringify({
    metadata: { total_size: 48 }, weight_map: { 'lin.weight': 'model-00001-of-00002.safetensors', 'lin.bias': 'model-00002-of-00002.safetensors' },
  }));
  const r = await et.ptdFromWeights(join(EVERYTHING, 'out.pte'), [index]);
  const back = new et.FlatTensorSerializer().deserialize(r.ptd);
  assert.deepEqual(bytesOf(back.buffers[back.namedData['lin.bias'].bufferIndex]), NEW_BIAS);
  const wrong = file('wrong.index.json', JSON.stringify({ weight_map: { 'lin.bias': 'model-00001-of-00002.safetensors' } }));
  await rejectsWith(et.ptdFromWeights(join(EVERYTHING, 'out.pte'), [wrong]), 'SAFETENSORS_INDEX', /lin\.bias/);
  const escape = file('escape.index.json', JSON.stringify({ weight_map: { 'lin.bias': '../x.safetensors' } }));
  await rejectsWith(et.ptdFromWeights(join(EVERYTHING, 'out.pte'), [escape]), 'SAFETENSORS_INDEX');
  // Parsed by the core as strictly as a header: a key twice (JSON.parse would
  // keep the last), anywhere, is refused, naming the key and its offset.
  const shard1 = '"model-00001-of-00002.safetensors"';
  const shard2 = '"model-00002-of-00002.safetensors"';
  const strict = [
    [`{"weight_map": {"lin.weight": ${shard1}, "lin.bias": ${shard2}, "lin.bias": ${shard1}}}`, /key "lin\.bias" appears twice.* at offset 114/],
    [`{"weight_map": {"lin.weight": ${shard1}}, "weight_map": {"lin.bias": ${shard2}}}`, /key "weight_map" appears twice/],
    [`{"metadata": {"a": {"b": 1, "b": 2}}, "weight_map": {"lin.weight": ${shard1}, "lin.bias": ${shard2}}}`, /key "b" appears twice/],
    [`{"weight_map": {"lin.weight": ${shard1}, "lin.bias": 3}}`, /weight_map\["lin\.bias"\] is not a string/],
    [`{"weight_map": {"\\ud800": ${shard1}}}`, /lone surrogate/],
    [`{"weight_map": {}} x`, /bytes after the index object/],
    ['{"metadata": {}}', /no weight_map object/],
    ['[1]', /not a JSON object/],
  ];
  for (const [text, message] of strict) {
    const bad = file('strict.index.json', text);
    await rejectsWith(et.ptdFromWeights(join(EVERYTHING, 'out.pte'), [bad]), 'SAFETENSORS_INDEX', message);
  }
});

test('hostile safetensors headers are coded errors', async () => {
  const pte = join(EVERYTHING, 'out.pte');
  const good = newWeights();
  const cases = [
    ['SAFETENSORS_TRUNCATED', new Uint8Array(5)],
    ['SAFETENSORS_HEADER_SIZE', (() => { const b = Buffer.from(good); b.writeBigUInt64LE(1n << 60n, 0); return b; })()],
    ['SAFETENSORS_HEADER_SIZE', (() => { const b = Buffer.from(good); b.writeBigUInt64LE(BigInt(b.length - 7), 0); return b; })()],
    ['SAFETENSORS_HEADER', (() => { const b = Buffer.from(good); b[8] = 0x5b; return b; })()],
    ['SAFETENSORS_HEADER', safetensorsBytes([], { header: [1, 2] })],
    ['SAFETENSORS_OFFSETS', safetensorsBytes([], { header: { 'lin.bias': { dtype: 'F32', shape: [3], data_offsets: [0, 12] } } })],
    ['SAFETENSORS_OFFSETS', safetensorsBytes([{ name: 'x', dtype: 'U8', shape: [12], bytes: new Uint8Array(12) }],
      { header: { 'lin.bias': { dtype: 'F32', shape: [3], data_offsets: [12, 0] } } })],
    ['SAFETENSORS_OVERLAP', safetensorsBytes([{ name: 'x', dtype: 'U8', shape: [16], bytes: new Uint8Array(16) }], {
      header: { a: { dtype: 'U8', shape: [8], data_offsets: [0, 8] }, b: { dtype: 'U8', shape: [8], data_offsets: [4, 12] } },
    })],
    ['SAFETENSORS_SHAPE', safetensorsBytes([{ name: 'x', dtype: 'U8', shape: [16], bytes: new Uint8Array(16) }], {
      header: { huge: { dtype: 'F32', shape: [2 ** 40, 2 ** 40, 2 ** 40], data_offsets: [0, 16] } },
    })],
    ['SAFETENSORS_SHAPE', safetensorsBytes([], { header: { neg: { dtype: 'F32', shape: [-1], data_offsets: [0, 0] } } })],
    ['SAFETENSORS_HEADER', safetensorsBytes([], { header: { __metadata__: { a: 1 } } })],
  ];
  // Duplicate keys, at the top and inside a tensor's entry: JSON.parse would
  // silently keep the last.
  cases.push(['SAFETENSORS_HEADER', safetensorsBytes([], { header: '{"a":{"dtype":"U8","shape":[0],"data_offsets":[0,0]},"\\u0061":{"dtype":"U8","shape":[0],"data_offsets":[0,0]}}' })]);
  cases.push(['SAFETENSORS_HEADER', safetensorsBytes([], { header: '{"a":{"dtype":"U8","dtype":"F32","shape":[0],"data_offsets":[0,0]}}' })]);
  for (const [i, [code, bytes]] of cases.entries()) {
    await rejectsWith(et.ptdFromWeights(pte, [bytes]), code);
    // Bytes in memory and the same bytes as a file fail alike.
    await rejectsWith(et.ptdFromWeights(pte, [file(`hostile-${i}.safetensors`, bytes)]), code);
  }
});

test('CLI weights: unused checkpoint names shown as the first ten and how many more; --json lists them all', async () => {
  const extra = Array.from({ length: 15 }, (_, i) => ({ name: `spare.${i}`, dtype: 'U8', shape: [1], bytes: new Uint8Array(1) }));
  const from = file('spare.safetensors', newWeights(extra));
  const out = join(tmp, 'spare-out.ptd');
  let r = await run(['weights', join(EVERYTHING, 'out.pte'), '--from', from, '-o', out, '--force']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /15 tensor\(s\) of the checkpoint not used by the program: spare\.0, .*, spare\.9 and 5 more\n/);
  r = await run(['weights', join(EVERYTHING, 'out.pte'), '--from', from, '-o', out, '--force', '--json']);
  assert.deepEqual(JSON.parse(r.stdout).unused, extra.map((t) => t.name));
});

test('a program without external tensors needs no .ptd', async () => {
  await rejectsWith(et.ptdFromWeights(join(CONFORMANCE, '02_constants_default', 'out.pte'), [newWeights()]), 'NO_EXTERNAL_TENSORS');
});

test('CLI weights: writes the .ptd; mismatch exits 1 naming the tensor and writes nothing; no overwrite without --force', async () => {
  const from = file('cli.safetensors', newWeights([{ name: 'unused.t', dtype: 'I32', shape: [1], bytes: new Uint8Array(4) }]));
  const out = join(tmp, 'cli-out.ptd');
  let r = await run(['weights', join(EVERYTHING, 'out.pte'), '--from', from, '-o', out, '--tag', 'model']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /2 tensor\(s\)/);
  assert.match(r.stdout, /unused\.t/);
  r = await run(['validate', join(EVERYTHING, 'out.pte'), out, join(EVERYTHING, 'shard_b.ptd')]);
  assert.equal(r.status, 0, r.stdout);
  r = await run(['weights', join(EVERYTHING, 'out.pte'), '--from', from, '-o', out]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /exists/);
  r = await run(['weights', join(EVERYTHING, 'out.pte'), '--from', from, '-o', out, '--force', '--json']);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).written, ['lin.weight', 'lin.bias']);
  r = await run(['weights', join(EVERYTHING, 'out.pte'), '--from', from, '-o', from, '--force']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /OUTPUT_IS_INPUT/);

  const shapeWrong = file('cli-shape.safetensors', safetensorsBytes([
    { name: 'lin.weight', dtype: 'F32', shape: [9], bytes: NEW_WEIGHT },
    { name: 'lin.bias', dtype: 'F32', shape: [3], bytes: NEW_BIAS },
  ]));
  const missing = file('cli-missing.safetensors', safetensorsBytes([{ name: 'lin.weight', dtype: 'F32', shape: [3, 3], bytes: NEW_WEIGHT }]));
  for (const [src, name] of [[shapeWrong, /lin\.weight.*shape \[9\]/], [missing, /lin\.bias/]]) {
    const target = join(tmp, 'never.ptd');
    r = await run(['weights', join(EVERYTHING, 'out.pte'), '--from', src, '-o', target]);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /WEIGHTS_MISMATCH/);
    assert.match(r.stderr, name);
    assert.equal(existsSync(target), false);
  }
  assert.deepEqual(readdirSync(tmp).filter((f) => f.startsWith('.')), []);  // no temporaries left
  r = await run(['weights', join(EVERYTHING, 'out.pte'), '-o', join(tmp, 'x.ptd')]);
  assert.equal(r.status, 2);
  r = await run(['weights', join(EVERYTHING, 'out.pte'), '--from', from, '--rename', 'noequals', '-o', join(tmp, 'x.ptd')]);
  assert.equal(r.status, 2);
  // The alignment limits are repack's: a usage error before anything is read.
  for (const bad of [String(2 ** 30), String(2 ** 24 + 1), '0']) {
    r = await run(['weights', join(EVERYTHING, 'out.pte'), '--from', from, '-o', join(tmp, 'x.ptd'), '--segment-alignment', bad]);
    assert.equal(r.status, 2, `${bad}: ${r.stderr}`);
    assert.match(r.stderr, /error \[INVALID_ALIGNMENT\]/, bad);
    assert.equal(existsSync(join(tmp, 'x.ptd')), false);
  }
});

test('CLI export-weights round trip through weights is byte-identical', async () => {
  const st = join(tmp, 'cli-export.safetensors');
  let r = await run(['export-weights', join(EXTCONST, 'out.pte'), join(EXTCONST, 'model.ptd'), '-o', st]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /4 tensor\(s\)/);
  const ptd = join(tmp, 'cli-roundtrip.ptd');
  r = await run(['weights', join(EXTCONST, 'out.pte'), '--from', st, '-o', ptd]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(Buffer.compare(readFileSync(ptd), readFileSync(join(EXTCONST, 'model.ptd'))), 0);
  r = await run(['export-weights', join(EXTCONST, 'out.pte'), '-o', join(tmp, 'nodata.safetensors')]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /EXTERNAL_DATA_MISSING/);
  assert.equal(existsSync(join(tmp, 'nodata.safetensors')), false);
});

test('a Blob checkpoint (browsers): read asynchronously; equal-sized tensors told apart, equal ones share a segment', async () => {
  const tensors = (w2) => [
    { name: 'linear.weight', dtype: 'F32', shape: [4, 3], bytes: float32([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]) },
    { name: 'linear.bias', dtype: 'F32', shape: [4], bytes: float32([1, 2, 3, 4]) },
    { name: 'emb.weight', dtype: 'F16', shape: [3, 5], bytes: new Uint8Array(30).fill(3) },
    { name: 'linear2.weight', dtype: 'F32', shape: [4, 3], bytes: w2 },
  ];
  const pte = join(EXTCONST, 'out.pte');
  const distinct = await et.ptdFromWeights(pte, [new Blob([safetensorsBytes(tensors(float32([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1])))])], { output: 'artifact' });
  const a = new et.FlatTensorSerializer().deserialize(await distinct.ptd.bytes());
  assert.equal(a.buffers.length, 4);
  const shared = await et.ptdFromWeights(pte, [new Blob([safetensorsBytes(tensors(float32([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])))])], { output: 'artifact' });
  const b = new et.FlatTensorSerializer().deserialize(await shared.ptd.bytes());
  assert.equal(b.buffers.length, 3);
  assert.equal(b.namedData['linear2.weight'].bufferIndex, b.namedData['linear.weight'].bufferIndex);
});

test('mutated safetensors headers: every failure is a coded EtpackError, never a bare exception', async () => {
  const { readSafetensorsHeader } = await import('../../npm/src/safetensors.mjs');
  const { bytesEntry } = await import('../../npm/src/sources.mjs');
  const good = newWeights([{ name: '__proto__', dtype: 'I64', shape: [1], bytes: new Uint8Array(8) }]);
  const headerEnd = 8 + Number(Buffer.from(good).readBigUInt64LE(0));
  let seed = 12345;
  const random = (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const codes = new Set();
  for (let i = 0; i < 1500; ++i) {
    const bytes = good.slice(0, i % 7 === 0 ? random(good.byteLength) : good.byteLength);
    for (let k = 0; k < 1 + random(3); ++k) {
      const at = random(Math.min(headerEnd, bytes.byteLength) || 1);
      if (at < bytes.byteLength) bytes[at] = i % 2 ? random(256) : '0123456789[]{}",:-.e'.charCodeAt(random(20));
    }
    try {
      const h = await readSafetensorsHeader(bytesEntry(bytes), 'mutated', et);
      for (const t of h.tensors.values()) assert.ok(t.offset + t.size <= bytes.byteLength);
    } catch (e) {
      assert.equal(e?.name, 'EtpackError', String(e?.stack ?? e));
      assert.match(e.code, /^SAFETENSORS_/);
      codes.add(e.code);
    }
  }
  assert.ok(codes.size >= 4, [...codes].join(', '));
});

test('CLI weights and export-weights read a URL program and data by range requests', async (t) => {
  const server = await startRangeServer({ 'out.pte': join(EXTCONST, 'out.pte'), 'model.ptd': join(EXTCONST, 'model.ptd') });
  t.after(() => server.close());
  const st = join(tmp, 'url-export.safetensors');
  let r = await run(['export-weights', server.url('f', 'out.pte'), server.url('norange', 'model.ptd'), '-o', st]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /fetched .* of http:\/\/127\.0\.0\.1/);
  const n = Number(readFileSync(st).readBigUInt64LE(0));
  const header = JSON.parse(readFileSync(st).subarray(8, 8 + n).toString());
  assert.deepEqual(header.__metadata__, { format: 'pt', 'executorch-pack.program': 'out.pte', 'executorch-pack.data': 'model.ptd' });
  const ptd = join(tmp, 'url-roundtrip.ptd');
  r = await run(['weights', server.url('redirect', 'out.pte'), '--from', st, '-o', ptd]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(Buffer.compare(readFileSync(ptd), readFileSync(join(EXTCONST, 'model.ptd'))), 0);
});
