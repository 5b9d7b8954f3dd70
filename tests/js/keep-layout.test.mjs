// Issue 37, "nothing changes unasked" and fidelity: repack keeps the input's
// layout unless asked, a deserialized upstream file serializes with any
// option, tied weights take one value, weights carries the .ptd entries it
// does not replace, and NaN bits survive the JS API both ways.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CONFORMANCE, loadApi } from './helpers/common.mjs';
import { runCli, scratch } from './helpers/scratch.mjs';
import { float32, safetensorsBytes } from './helpers/safetensors.mjs';

const et = await loadApi();
const EVERYTHING = join(CONFORMANCE, '13_everything');
const DELEGATES = join(dirname(CONFORMANCE), 'delegates');
const { dir: tmp, file } = scratch('etpack-keep-layout-');
const read = (...p) => readFileSync(join(...p));
const data13 = () => ({ 'model.ptd': read(EVERYTHING, 'model.ptd'), 'shard_b.ptd': read(EVERYTHING, 'shard_b.ptd') });
const delegatesOf = (pte) => et.inspect(pte).methods.flatMap((m) => m.delegates);
const bytesOf = (x) => Uint8Array.from(x instanceof Uint8Array ? x : x.toBytes ? x.toBytes() : x);

test('repack --segment-alignment 4096 keeps 13_everything\'s three delegates in their two shared segments', async () => {
  const input = read(EVERYTHING, 'out.pte');
  const before = delegatesOf(input);
  assert.equal(before.length, 3);
  assert.equal(new Set(before.map((d) => d.offset)).size, 2);
  const r = et.repack(input, { data: data13(), segmentAlignment: 4096 });
  const after = delegatesOf(r.pte);
  assert.deepEqual(after.map((d) => d.location), ['segment', 'segment', 'segment']);
  assert.equal(new Set(after.map((d) => d.offset)).size, 2, 'the two equal XNNPACK blobs share one segment');
  assert.deepEqual(after.map((d) => d.size), before.map((d) => d.size));
  for (const d of after) assert.equal(d.offset % 4096, 0);
  assert.deepEqual(r.delegates, { inSegments: 3, inline: 0, movedToSegments: 0, movedInline: 0 });
  assert.equal(r.segmentAlignment, 4096);
  assert.equal(r.segmentAlignmentKept, false);
  const segments = et.inspect(r.pte).segments.length;
  assert.ok(r.pte.length <= input.length + (segments + 1) * 4096, `${r.pte.length} bytes: nothing stored twice`);
  for (let i = 0; i < 3; ++i) {
    assert.deepEqual(et.extract(r.pte, { delegate: i }).bytes, et.extract(input, { delegate: i }).bytes);
  }

  // The CLI: the same, and its summary says nothing moved.
  const out = join(tmp, 'out4096') + '/';
  const cli = await runCli(['repack', join(EVERYTHING, 'out.pte'), join(EVERYTHING, 'model.ptd'), join(EVERYTHING, 'shard_b.ptd'),
    '--segment-alignment', '4096', '-o', out]);
  assert.equal(cli.status, 0, cli.stderr);
  assert.match(cli.stdout, /^kept 3 delegate blobs where they were \(3 in segments, 0 inline\)$/m);
  const written = readFileSync(join(out, 'out.pte'));
  assert.deepEqual(delegatesOf(written).map((d) => d.offset), after.map((d) => d.offset));
  const json = await runCli(['repack', join(EVERYTHING, 'out.pte'), join(EVERYTHING, 'model.ptd'), join(EVERYTHING, 'shard_b.ptd'),
    '--extract-delegate-segments', '--inline-delegates', '-o', join(tmp, 'never') + '/']);
  assert.equal(json.status, 2);  // opposite asks: a usage error
});

test('repack with no layout option writes the input again byte for byte; asked, it moves and says so', async () => {
  const input = read(EVERYTHING, 'out.pte');
  const same = et.repack(input, { data: data13() });
  assert.deepEqual(same.pte, new Uint8Array(input));
  assert.equal(same.segmentAlignmentKept, true);
  assert.equal(same.segmentAlignment, 128);
  const aligned = read(CONFORMANCE, '03_constants_align64_seg4096', 'out.pte');
  // The constant alignment is not in the file (only the header padding shows it): given.
  const kept = et.repack(aligned, { constantTensorAlignment: 64 });
  assert.deepEqual(kept.pte, new Uint8Array(aligned));
  assert.equal(kept.segmentAlignmentKept, true);  // 2048 lays it out exactly as 4096 did

  const inlined = et.repack(input, { data: data13(), extractDelegateSegments: false });
  assert.deepEqual(inlined.delegates, { inSegments: 0, inline: 3, movedToSegments: 0, movedInline: 3 });
  assert.deepEqual(delegatesOf(inlined.pte).map((d) => d.location), ['inline', 'inline', 'inline']);
  // Inline now: repacked again with no option they stay inline.
  const again = et.repack(inlined.pte, { data: { 'model.ptd': inlined.ptd.model, 'shard_b.ptd': inlined.ptd.shard_b } });
  assert.deepEqual(again.pte, inlined.pte);
  assert.deepEqual(again.delegates, { inSegments: 0, inline: 3, movedToSegments: 0, movedInline: 0 });

  const cli = await runCli(['repack', join(EVERYTHING, 'out.pte'), join(EVERYTHING, 'model.ptd'), join(EVERYTHING, 'shard_b.ptd'),
    '--inline-delegates', '-o', join(tmp, 'inl') + '/', '--json']);
  assert.equal(cli.status, 0, cli.stderr);
  const doc = JSON.parse(cli.stdout);
  assert.deepEqual(doc.delegates, { inSegments: 0, inline: 3, movedToSegments: 0, movedInline: 3 });
  assert.deepEqual(doc.segmentAlignment, { value: 128, kept: true });
});

// The upstream files with inline delegates and no extended header list the
// placeholder segment; with extraction they come out as upstream writes the
// exported program with extraction (pte_segment/out.pte beside them).
test('serializePteBinary / serializeForExecutorch of a deserialized inline upstream file, with extraction', () => {
  let checked = 0;
  for (const backend of readdirSync(DELEGATES, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    for (const c of readdirSync(join(DELEGATES, backend.name))) {
      const path = join(DELEGATES, backend.name, c, 'pte_inline', 'out.pte');
      if (!existsSync(path)) continue;
      const input = readFileSync(path);
      const back = et.deserializePteBinary(input);
      assert.deepEqual(et.serializePteBinary(back), new Uint8Array(input), `${c}: upstream's round trip`);
      const extracted = et.serializePteBinary(back, { extractDelegateSegments: true });
      const expected = join(DELEGATES, backend.name, c, 'pte_segment', 'out.pte');
      if (existsSync(expected)) assert.deepEqual(extracted, new Uint8Array(readFileSync(expected)), `${c}: as upstream extracts`);
      // serializeForExecutorch (extraction on by default) of the program alone:
      // the same bytes where the file has no named data.
      const { pte } = et.serializeForExecutorch({ program: back.program });
      if (!back.namedData) assert.deepEqual(pte, extracted, c);
      // Judged as the input is (x01's empty named keys, x08's .ptd keys).
      assert.equal(et.validate(extracted).ok, et.validate(input).ok, c);
      assert.deepEqual(et.extract(extracted).bytes, et.extract(input).bytes, c);
      ++checked;
    }
  }
  assert.ok(checked >= 5, `${checked} files`);
});

// 13_everything with values[19] (Float[3], constant buffer 1) named
// 'emb.weight' and a second tensor on the same buffer named 'lm_head.weight'.
function tiedProgram() {
  const pte = et.deserializePteBinary(read(EVERYTHING, 'out.pte'));
  const values = pte.program.execution_plan[0].values;
  const info = (fqn) => ({ mutable_data_segments_idx: 0, fully_qualified_name: fqn, location: 0, device_type: 0, device_index: 0 });
  values[19].val.extra_tensor_info = info('emb.weight');
  values.push({ val_type: 'Tensor', val: { ...values[19].val, extra_tensor_info: info('lm_head.weight') } });
  return et.serializePteBinary(pte, { extractDelegateSegments: true });
}

test('tied weights: export-weights writes both names; one value under either name, or equal ones under both', async () => {
  const tied = tiedProgram();
  const exported = et.exportWeights(tied, data13(), { include: ['emb.weight', 'lm_head.weight'] });
  assert.deepEqual(exported.tensors, ['emb.weight', 'lm_head.weight']);
  const NEW = float32([0.5, -0.25, 8]);
  const stored = (pte) => Uint8Array.from(bytesOf(et.deserializePteBinary(pte).program.constant_buffer[1].storage)).subarray(0, 12);
  for (const given of [['emb.weight'], ['lm_head.weight'], ['emb.weight', 'lm_head.weight']]) {
    const st = safetensorsBytes(given.map((name) => ({ name, dtype: 'F32', shape: [3], bytes: NEW })));
    const r = await et.pteWithWeights(tied, [st]);
    assert.deepEqual(r.replaced, ['emb.weight', 'lm_head.weight'], given.join('+'));
    assert.deepEqual(r.kept, []);
    assert.deepEqual(stored(r.pte), NEW);
  }
  const differing = safetensorsBytes([
    { name: 'emb.weight', dtype: 'F32', shape: [3], bytes: NEW },
    { name: 'lm_head.weight', dtype: 'F32', shape: [3], bytes: float32([0.5, -0.25, 9]) },
  ]);
  await assert.rejects(et.pteWithWeights(tied, [differing]), (e) => {
    assert.equal(e.code, 'WEIGHTS_MISMATCH');
    assert.match(e.message, /"emb\.weight" and "lm_head\.weight" share one constant buffer/);
    return true;
  });
  // The CLI's repack --weights, with one name.
  const pte = file('tied.pte', tied);
  const st = file('emb.safetensors', safetensorsBytes([{ name: 'lm_head.weight', dtype: 'F32', shape: [3], bytes: NEW }]));
  const out = join(tmp, 'tied-out.pte');
  const r = await runCli(['repack', pte, join(EVERYTHING, 'model.ptd'), join(EVERYTHING, 'shard_b.ptd'), '--weights', st, '-o', out]);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(stored(readFileSync(out)), NEW);
});

test('pteWithWeights keeps each delegate where it was: in a segment or inline, mixed in one file', async () => {
  const pte = et.deserializePteBinary(tiedProgram());
  // Delegates 0 and 2 in segments, 1 inline.
  const mixed = et._internal.serializePteKeeping(pte, { extractDelegateSegments: true }, {}, [true, false, true]);
  const where = (bytes) => delegatesOf(bytes).map((d) => d.location);
  assert.deepEqual(where(mixed), ['segment', 'inline', 'segment']);
  const st = safetensorsBytes([{ name: 'emb.weight', dtype: 'F32', shape: [3], bytes: float32([0.5, -0.25, 8]) }]);
  const r = await et.pteWithWeights(mixed, [st]);
  assert.deepEqual(r.replaced, ['emb.weight', 'lm_head.weight']);
  assert.deepEqual(where(r.pte), ['segment', 'inline', 'segment']);
  for (let i = 0; i < 3; ++i) assert.deepEqual(et.extract(r.pte, { delegate: i }).bytes, et.extract(mixed, { delegate: i }).bytes);
  // Asked for: every delegate with data in segments, or every one inline.
  assert.deepEqual(where((await et.pteWithWeights(mixed, [st], { extractDelegateSegments: true })).pte), ['segment', 'segment', 'segment']);
  assert.deepEqual(where((await et.pteWithWeights(mixed, [st], { extractDelegateSegments: false })).pte), ['inline', 'inline', 'inline']);
});

test('pteWithWeights keeps the input\'s constant tensor alignment (64) unless constantTensorAlignment asks', async () => {
  const d = et.deserializePteBinary(read(CONFORMANCE, '03_constants_align64_seg4096', 'out.pte'));
  for (const [i, v] of d.program.execution_plan[0].values.entries()) {
    if (v.val_type === 'Tensor' && v.val.data_buffer_idx > 0 && !v.val.allocation_info) v.val.extra_tensor_info = { fully_qualified_name: `c${i}`, location: 0 };
  }
  const named = et.serializePteBinary(d, { constantTensorAlignment: 64 });
  const weights = et.exportWeights(named).safetensors;
  const constants = (pte) => et.inspect(pte).constants.totalBytes;
  const kept = (await et.pteWithWeights(named, [weights])).pte;
  assert.equal(constants(kept), constants(named));
  assert.deepEqual(bytesOf(kept), bytesOf(et.repack(named).pte), 'the same bytes as a plain repack');
  const asked = (await et.pteWithWeights(named, [weights], { constantTensorAlignment: 16 })).pte;
  assert.ok(constants(asked) < constants(named), `${constants(asked)} < ${constants(named)}: re-laid at 16 when asked`);
});

test('weights PTE model.ptd --from W keeps the entries it does not replace (ext.w) byte for byte; --drop lists what goes', async () => {
  const pte = join(EVERYTHING, 'out.pte');
  const w = file('w.safetensors', bytesOf(et.exportWeights(pte, data13()).safetensors));
  const model = new et.FlatTensorSerializer().deserialize(read(EVERYTHING, 'model.ptd'));
  assert.ok(model.namedData['ext.w'], 'ext.w is in model.ptd');
  const entryBytes = (ptd, key) => bytesOf(ptd.buffers[ptd.namedData[key].bufferIndex]);

  const r = await et.ptdFromWeights(pte, [w], { data: [join(EVERYTHING, 'model.ptd')] });
  const written = new et.FlatTensorSerializer().deserialize(r.ptd);
  assert.deepEqual(entryBytes(written, 'ext.w'), entryBytes(model, 'ext.w'));
  assert.equal(written.namedData['ext.w'].alignment, model.namedData['ext.w'].alignment);
  assert.ok(r.carried.some((c) => c.key === 'ext.w'));
  assert.deepEqual(r.dropped, []);

  const out = join(tmp, 'new.ptd');
  const cli = await runCli(['weights', pte, join(EVERYTHING, 'model.ptd'), '--from', w, '-o', out]);
  assert.equal(cli.status, 0, cli.stderr);
  assert.match(cli.stdout, /^carried \d+ entr(y|ies) of the given \.ptd files unchanged: .*ext\.w/m);
  assert.deepEqual(entryBytes(new et.FlatTensorSerializer().deserialize(readFileSync(out)), 'ext.w'), entryBytes(model, 'ext.w'));

  const dropped = await runCli(['weights', pte, join(EVERYTHING, 'model.ptd'), '--from', w, '-o', join(tmp, 'dropped.ptd'), '--drop', 'ext.w', '--json']);
  assert.equal(dropped.status, 0, dropped.stderr);
  const doc = JSON.parse(dropped.stdout);
  assert.deepEqual(doc.dropped, ['ext.w']);
  assert.equal(new et.FlatTensorSerializer().deserialize(readFileSync(join(tmp, 'dropped.ptd'))).namedData['ext.w'], undefined);
  await assert.rejects(et.ptdFromWeights(pte, [w], { data: [join(EVERYTHING, 'model.ptd')], drop: ['no.such'] }), { code: 'INVALID_ARGUMENT' });
});

test('exportWeights with nothing to export throws NOTHING_TO_EXPORT, as export-weights exits 1 with it', () => {
  const pte = join(EVERYTHING, 'out.pte');
  assert.throws(() => et.exportWeights(pte, data13(), { include: ['zz*'] }), (e) => e.code === 'NOTHING_TO_EXPORT' && /zz\*/.test(e.hint));
});

// NaN bits: −NaN, a signalling NaN with a payload, in a Double EValue and a
// DoubleList, through bytes -> object -> bytes and object -> bytes -> object.
const BITS = ['fff8000000000000', '7ff0000000000001', 'fff4000000abcdef'];
const bitsAt = (bytes, hex) => {
  const le = Uint8Array.from(hex.match(/../g).reverse(), (h) => parseInt(h, 16));
  for (let i = 0; i + 8 <= bytes.length; ++i) if (le.every((b, k) => bytes[i + k] === b)) return i;
  return -1;
};

test('NaN bits survive deserializePteBinary and serializePteBinary both ways', () => {
  const pte = et.deserializePteBinary(read(CONFORMANCE, '02_constants_default', 'out.pte'));
  const values = pte.program.execution_plan[0].values;
  const first = values.length;
  for (const nanBits of BITS) values.push({ val_type: 'Double', val: { double_val: { nanBits } } });
  values.push({ val_type: 'Double', val: { double_val: NaN } });
  values.push({ val_type: 'DoubleList', val: { items: [1.5, { nanBits: BITS[1] }, NaN] } });
  const bytes = et.serializePteBinary(pte);
  for (const hex of BITS) assert.ok(bitsAt(bytes, hex) >= 0, `${hex} written`);
  const back = et.deserializePteBinary(bytes).program.execution_plan[0].values;
  assert.deepEqual(back.slice(first, first + 3).map((v) => v.val.double_val), BITS.map((nanBits) => ({ nanBits })));
  assert.ok(Number.isNaN(back[first + 3].val.double_val));
  assert.deepEqual(back[first + 4].val.items.slice(0, 2), [1.5, { nanBits: BITS[1] }]);
  assert.ok(Number.isNaN(back[first + 4].val.items[2]));
  // And again from those objects: the same bytes.
  assert.deepEqual(et.serializePteBinary(et.deserializePteBinary(bytes)), bytes);
  // The JSON-text route (programToJson's input) reads the same values.
  assert.deepEqual(et.serializePteBinary({ program: pte.program }), bytes);
});

test('NaN bits survive a .bpte both ways', () => {
  const program = read(CONFORMANCE, '02_constants_default', 'out.pte');
  const value = (nanBits) => ({ val_type: 'Double', val: { double_val: nanBits ? { nanBits } : NaN } });
  const bundle = {
    version: 0, program,
    method_test_suites: [{ method_name: 'forward', test_cases: [{ inputs: BITS.map(value), expected_outputs: [value(null)] }] }],
  };
  const bytes = et.serializeBundledProgram(bundle);
  for (const hex of BITS) assert.ok(bitsAt(bytes, hex) >= 0, `${hex} written`);
  const back = et.deserializeBundledProgram(bytes);
  const [testCase] = back.method_test_suites[0].test_cases;
  assert.deepEqual(testCase.inputs.map((v) => v.val.double_val), BITS.map((nanBits) => ({ nanBits })));
  assert.ok(Number.isNaN(testCase.expected_outputs[0].val.double_val));
  assert.deepEqual(et.serializeBundledProgram(back), bytes);
});
