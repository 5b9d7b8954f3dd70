// The JS API: argument validation, byte-array flavours, BigInt, custom data
// serializers, error codes, error storms, init, zero-copy store output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadApi, loadCase, parseLossless, assertBytes, storeToJs, configToJs, NPM } from './helpers/common.mjs';
import { join } from 'node:path';

const et = await loadApi();
const { default: init, EtpackError } = await import(join(NPM, 'index.node.mjs'));

const c02 = loadCase('02_constants_default');
const c13 = loadCase('13_everything');
const c20 = loadCase('20_int64_extremes');

function run13(overrides = {}) {
  const { spec, file, text } = c13;
  const emitter = {
    program: text(spec.program),
    mutableData: spec.mutable_data.map(file),
    externalConstantMap: spec.external_constant_map,
    externalConstantBuffer: spec.external_constant_buffer.map(file),
    ...overrides.emitter,
  };
  const store = overrides.store ?? storeToJs(spec.named_data_store, file);
  return et.serializeForExecutorch(emitter, configToJs(spec.config), overrides.serializer, store);
}

function assertCode(fn, code, pattern) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof Error, 'an Error');
    assert.ok(e instanceof EtpackError, 'an EtpackError');
    assert.equal(e.code, code, e.message);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

test('init is memoised and exposes the version', async () => {
  const again = await init();
  assert.equal(again, et);
  assert.equal(await init(), et);
  assert.equal(typeof et.version, 'string');
  assert.match(et.version, /^\d+\.\d+\.\d+/);
  assert.equal(et.EtpackError, EtpackError);
});

test('wrong argument types give INVALID_ARGUMENT', () => {
  const store = new et.NamedDataStore();
  assertCode(() => store.addNamedData(42, new Uint8Array(1)), 'INVALID_ARGUMENT', /key/);
  assertCode(() => store.addNamedData('k', 'not bytes'), 'INVALID_ARGUMENT', /string/);
  assertCode(() => store.addNamedData('k', [1, 2, 3]), 'INVALID_ARGUMENT', /Array/);
  assertCode(() => store.addNamedData('k', new Uint8Array(1), { alignment: 'x' }), 'INVALID_ARGUMENT');
  assertCode(() => store.addNamedData('k', new Uint8Array(1), { externalTag: 5 }), 'INVALID_ARGUMENT');
  assertCode(() => store.addNamedData('k', new Uint8Array(1), { tensorLayout: 'x' }), 'INVALID_ARGUMENT');
  assertCode(() => store.externalizePteData(16, 7), 'INVALID_ARGUMENT');
  assertCode(() => store.externalizePteData(-1, 'p'), 'INVALID_ARGUMENT');
  assertCode(() => store.mergeNamedDataStore({}), 'INVALID_ARGUMENT');
  assertCode(() => et.serializeForExecutorch(null), 'INVALID_ARGUMENT');
  assertCode(() => et.serializeForExecutorch({ program: 42 }), 'INVALID_ARGUMENT');
  assertCode(() => et.serializeForExecutorch({ program: [] }), 'INVALID_ARGUMENT');
  assertCode(() => et.serializeForExecutorch({ program: c02.text('program.json'), mutableData: 'x' }), 'INVALID_ARGUMENT');
  assertCode(() => et.serializeForExecutorch({ program: c02.text('program.json'), externalConstantBuffer: {} }), 'INVALID_ARGUMENT');
  assertCode(() => et.serializeForExecutorch({ program: c02.text('program.json') }, {}, { serialize: 1 }), 'INVALID_ARGUMENT');
  assertCode(() => et.serializeForExecutorch({ program: c02.text('program.json') }, 'config'), 'INVALID_ARGUMENT');
  assertCode(() => et.serializePteBinary(undefined), 'INVALID_ARGUMENT');
  assertCode(() => et.deserializePteBinary(42), 'INVALID_ARGUMENT');
  assertCode(() => et.deserializePteBinary('no-such-file.pte'), 'IO_ERROR');  // a string is a path (Node)
  assertCode(() => et.deserializePteBinary(null), 'INVALID_ARGUMENT');
  assertCode(() => new et.FlatTensorSerializer().serialize({}), 'INVALID_ARGUMENT');
  assertCode(() => new et.FlatTensorSerializer().deserialize(12), 'INVALID_ARGUMENT');
  assertCode(() => et.inspect({}), 'INVALID_ARGUMENT');
  assertCode(() => et.validate(new Uint8Array(8), 'ptds'), 'INVALID_ARGUMENT');
  assertCode(() => et.validate(new Uint8Array(8), { a: 7 }), 'INVALID_ARGUMENT');
  assertCode(() => et.validate(new Uint8Array(8), { a: 'no-such.ptd' }), 'IO_ERROR');  // strings are paths (Node)
  assertCode(() => et.repack('no/such/file.pte'), 'IO_ERROR', /cannot open no\/such\/file.pte/);
  assertCode(() => et.repack(new Uint8Array(8), { output: 'string' }), 'INVALID_ARGUMENT', /output/);
  assertCode(() => et.repack(new Uint8Array(8), { onProgress: 1 }), 'INVALID_ARGUMENT', /onProgress/);
  store.delete();
});

test('error codes from the core', () => {
  const program = c02.text('program.json');
  assertCode(() => et.serializeForExecutorch({ program }, { segmentAlignment: 0 }), 'INVALID_ALIGNMENT');
  assertCode(() => et.serializeForExecutorch({ program }, { constantTensorAlignment: 3 }), 'INVALID_ALIGNMENT', /3/);
  assertCode(() => new et.FlatTensorSerializer({ segmentAlignment: -4 }), 'INVALID_ALIGNMENT');
  const store = new et.NamedDataStore();
  store.addNamedData('k', new Uint8Array([1, 2]));
  assertCode(() => store.addNamedData('k', new Uint8Array([1, 3])), 'DUPLICATE_KEY', /k/);
  assertCode(() => store.addNamedData('z', new Uint8Array([1]), { alignment: 0 }), 'INVALID_ALIGNMENT');
  assertCode(() => store.externalizePteData(64, ''), 'INVALID_ARGUMENT');
  assertCode(() => store.externalizePteData(1, 'shard'), 'SHARD_CAP_EXCEEDED');
  store.delete();
  assertCode(() => et.deserializePteBinary(new Uint8Array(3)), 'MALFORMED_FILE');
  assert.throws(() => et.serializeForExecutorch({ program: '{"version": 0, "bogus": 1}' }),
    (e) => e instanceof EtpackError && /^[A-Z_]+$/.test(e.code) && /bogus/.test(e.message));
});

test('byte-array flavours: ArrayBuffer, offset Uint8Array, Buffer, DataView, Float32Array', () => {
  const { spec, file } = c13;
  const expected = file(spec.expected.pte);
  // Each flavour for every byte input of 13_everything.
  const offset = (b) => {
    const big = new Uint8Array(b.length + 13);
    big.set(b, 7);
    return big.subarray(7, 7 + b.length);
  };
  const flavours = {
    ArrayBuffer: (b) => Uint8Array.from(b).buffer,
    offsetUint8Array: offset,
    Buffer: (b) => Buffer.from(b),
    DataView: (b) => { const o = offset(b); return new DataView(o.buffer, o.byteOffset, o.byteLength); },
  };
  for (const [name, wrap] of Object.entries(flavours)) {
    const store = storeToJs(spec.named_data_store, file);
    store.buffers = store.buffers.map(wrap);
    const out = run13({
      emitter: { mutableData: spec.mutable_data.map((f) => wrap(file(f))), externalConstantBuffer: spec.external_constant_buffer.map((f) => wrap(file(f))) },
      store,
    });
    assertBytes(out.pte, expected, `${name}: pte`);
    for (const [tag, f] of Object.entries(spec.expected.ptd)) assertBytes(out.ptd[tag], file(f), `${name}: ptd ${tag}`);
  }
  // Float32Array: as store data and as FlatTensorSerializer buffers.
  const floats = new Float32Array([1.5, -2, 3.25, 0]);
  const asBytes = new Uint8Array(floats.buffer);
  const s1 = new et.NamedDataStore();
  s1.addNamedData('w', floats, { alignment: 16 });
  const s2 = new et.NamedDataStore();
  s2.addNamedData('w', asBytes, { alignment: 16 });
  assert.deepEqual(s1.getNamedDataStoreOutput().buffers[0], asBytes);
  const fts = new et.FlatTensorSerializer();
  const payload = (b) => ({ buffers: [b], namedData: { w: { bufferIndex: 0, alignment: 16, tensorLayout: { scalarType: 6, sizes: [4], dimOrder: [0] } } } });
  assert.deepEqual(fts.serialize(payload(floats)), fts.serialize(payload(asBytes)));
  assert.deepEqual(fts.serialize(payload(floats)), fts.serialize(payload(new DataView(floats.buffer))));
  const back = fts.deserialize(fts.serialize(payload(floats)).buffer);
  assert.deepEqual(new Float32Array(back.buffers[0].slice().buffer), floats);
  assert.deepEqual(back.namedData.w.tensorLayout, { scalarType: 6, sizes: [4], dimOrder: [0] });
  s1.delete();
  s2.delete();
  // deserialize takes every flavour too.
  const pte = file(spec.expected.pte);
  for (const wrap of Object.values(flavours)) {
    assert.equal(et.deserializePteBinary(wrap(pte)).program.execution_plan[0].name, 'forward');
  }
});

test('BigInt round trip on 20_int64_extremes', () => {
  const expected = c20.file('out.pte');
  const back = et.deserializePteBinary(expected);
  const values = back.program.execution_plan[0].values;
  const ints = values.filter((v) => v.val_type === 'Int').map((v) => v.val.int_val);
  assert.ok(ints.includes(9223372036854775807n), 'INT64_MAX as BigInt');
  assert.ok(ints.includes(-9223372036854775808n), 'INT64_MIN as BigInt');
  assert.ok(ints.includes(9007199254740993n), '2^53+1 as BigInt');
  assert.ok(ints.includes(-9007199254740995n));
  assert.ok(ints.includes(1), 'safe ints stay Numbers');
  assert.equal(typeof ints.find((x) => x === 1099511627779), 'number');
  const sizes = back.program.execution_plan[0].non_const_buffer_sizes;
  assert.deepEqual(sizes, [0, 1099511627793, 9223372036854775807n]);

  // The returned program goes back in unchanged and gives the same bytes.
  const again = et.serializePteBinary(back, { extractDelegateSegments: true });
  assertBytes(again, expected, 'serializePteBinary(deserialize(x))');
  const viaSfe = et.serializeForExecutorch({ program: back.program, mutableData: back.mutableData });
  assertBytes(viaSfe.pte, expected, 'serializeForExecutorch(deserialize(x).program)');
  // The same through the original program as a BigInt-parsed object.
  const parsed = parseLossless(c20.text('program.json'));
  assertBytes(et.serializeForExecutorch({ program: parsed }).pte, expected, 'lossless-parsed object');
  // programToJson keeps int64 exact.
  const text = et.programToJson(back.program);
  assert.ok(text.includes('9223372036854775807') && text.includes('-9223372036854775808') && text.includes('9007199254740993'));
  assertBytes(et.serializeForExecutorch({ program: text }).pte, expected, 'programToJson text');

  // A Number outside the safe range for an int field is rejected, never rounded.
  const lossy = JSON.parse(c20.text('program.json'));  // 2^53+1 rounds here
  assertCode(() => et.serializeForExecutorch({ program: lossy }), 'INVALID_ARGUMENT');
  const one = parseLossless(c20.text('program.json'));
  one.execution_plan[0].values.find((v) => v.val_type === 'Int').val.int_val = 2 ** 60;
  assertCode(() => et.serializeForExecutorch({ program: one }), 'INVALID_ARGUMENT', /1152921504606846976|safe/);
  // A BigInt there is fine.
  one.execution_plan[0].values.find((v) => v.val_type === 'Int').val.int_val = 2n ** 60n;
  assert.ok(et.serializeForExecutorch({ program: one }).pte.byteLength > 0);
});

test('a custom JS data serializer receives the payload and its bytes become the .ptd', () => {
  const { spec, file } = c13;
  const calls = [];
  const custom = {
    serialize(payload) {
      calls.push(payload);
      assert.ok(Array.isArray(payload.buffers));
      for (const b of payload.buffers) assert.ok(b instanceof Uint8Array);
      const keys = Object.keys(payload.namedData);
      for (const e of Object.values(payload.namedData)) assert.ok(e.bufferIndex < payload.buffers.length);
      return new TextEncoder().encode(`custom:${keys.join(',')}`);
    },
  };
  const out = run13({ serializer: custom });
  assertBytes(out.pte, file(spec.expected.pte), 'pte unaffected by the data serializer');
  assert.deepEqual(Object.keys(out.ptd), ['model', 'shard_b']);
  assert.equal(calls.length, 2);
  assert.equal(new TextDecoder().decode(out.ptd.model), 'custom:lin.weight,lin.bias,ext.w');
  assert.deepEqual(calls[0].namedData['lin.weight'].tensorLayout, { scalarType: 6, sizes: [3, 3], dimOrder: [0, 1] });
  // Handing the payload to the built-in serializer reproduces upstream's files.
  const forward = { serialize: (payload) => new et.FlatTensorSerializer().serialize(payload) };
  const again = run13({ serializer: forward });
  for (const [tag, f] of Object.entries(spec.expected.ptd)) assertBytes(again.ptd[tag], file(f), `ptd ${tag}`);
  // A serializer that throws: the call fails with a coded Error.
  assert.throws(() => run13({ serializer: { serialize() { throw new Error('boom'); } } }), (e) => {
    assert.ok(e instanceof Error);
    assert.equal(typeof e.code, 'string');
    assert.match(e.message, /boom/);
    return true;
  });
  // A serializer returning a non-byte value.
  assert.throws(() => run13({ serializer: { serialize: () => 'nope' } }), (e) => typeof e.code === 'string');
});

test('200,000 errors in a row leave the module healthy', () => {
  const bad = new Uint8Array(16);
  const codes = new Map();
  for (let i = 0; i < 200000; ++i) {
    try {
      et.deserializePteBinary(bad);
      assert.fail('no error');
    } catch (e) {
      codes.set(e.code, (codes.get(e.code) ?? 0) + 1);
    }
  }
  assert.deepEqual([...codes.keys()], ['MALFORMED_FILE']);
  // A core-side error path too (store duplicate key), fewer times.
  const store = new et.NamedDataStore();
  store.addNamedData('k', new Uint8Array([1]));
  for (let i = 0; i < 20000; ++i) assert.throws(() => store.addNamedData('k', new Uint8Array([2])), { code: 'DUPLICATE_KEY' });
  store.delete();
  const out = run13();
  assertBytes(out.pte, c13.file('out.pte'), 'pte after the error storm');
  assertBytes(out.ptd.model, c13.file('model.ptd'), 'ptd after the error storm');
});

test('getNamedDataStoreOutput returns views of the caller\'s arrays (no copy)', () => {
  const a = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]);
  const backing = new Uint8Array(64).fill(9);
  const b = backing.subarray(5, 21);
  const store = new et.NamedDataStore();
  store.addNamedData('a', a, { alignment: 8 });
  store.addNamedData('b', b, { externalTag: 'ext' });
  store.addNamedData('a2', new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]));  // same bytes: deduped to a
  const out = store.getNamedDataStoreOutput();
  assert.equal(out.buffers.length, 2);
  assert.equal(out.buffers[0].buffer, a.buffer);
  assert.equal(out.buffers[0].byteOffset, a.byteOffset);
  assert.equal(out.buffers[1].buffer, backing.buffer);
  assert.equal(out.buffers[1].byteOffset, 5);
  assert.equal(out.buffers[1].byteLength, 16);
  assert.deepEqual(out.pteData, {
    a: { bufferIndex: 0, alignment: 8, tensorLayout: null },
    a2: { bufferIndex: 0, alignment: 1, tensorLayout: null },
  });
  assert.deepEqual(out.externalData, { ext: { b: { bufferIndex: 1, alignment: 1, tensorLayout: null } } });
  // Mutating the caller's array shows through: same memory.
  a[0] = 42;
  assert.equal(out.buffers[0][0], 42);
  store.delete();
});

test('NamedDataStore output and store objects are accepted by serializeForExecutorch', () => {
  const { spec, file } = c13;
  const store = new et.NamedDataStore();
  const nd = spec.named_data_store;
  for (const [key, e] of Object.entries(nd.pte_data)) {
    const l = e.tensor_layout;
    store.addNamedData(key, file(nd.buffers[e.buffer_index]), { alignment: e.alignment, tensorLayout: l && { scalarType: l.scalar_type, sizes: l.sizes, dimOrder: l.dim_order } });
  }
  for (const [tag, entries] of Object.entries(nd.external_data)) {
    for (const [key, e] of Object.entries(entries)) {
      const l = e.tensor_layout;
      store.addNamedData(key, file(nd.buffers[e.buffer_index]), { alignment: e.alignment, externalTag: tag, tensorLayout: l && { scalarType: l.scalar_type, sizes: l.sizes, dimOrder: l.dim_order } });
    }
  }
  for (const s of [store, store.getNamedDataStoreOutput()]) {
    const out = run13({ store: s });
    assertBytes(out.pte, file(spec.expected.pte), 'pte');
    for (const [tag, f] of Object.entries(spec.expected.ptd)) assertBytes(out.ptd[tag], file(f), `ptd ${tag}`);
  }
  store.delete();
});

test('inspect, validate and repack through the API', () => {
  const pte = c13.file('out.pte');
  const s = et.inspect(pte);
  assert.equal(s.format, 'pte');
  assert.equal(s.fileSize, pte.length);
  assert.equal(et.inspect(c13.file('model.ptd')).format, 'ptd');
  const alone = et.validate(pte);
  assert.equal(alone.ok, false); // load_method needs the .ptd files: InvalidState
  assert.ok(alone.errors.some((w) => w.code === 'EXTERNAL_TENSOR_UNRESOLVED'));
  const both = et.validate(pte, { 'model.ptd': c13.file('model.ptd'), 'shard_b.ptd': c13.file('shard_b.ptd') });
  assert.deepEqual(both, { ok: true, errors: [], warnings: [] });
  assert.equal(et.validate(c13.file('model.ptd')).ok, true, 'a .ptd validates on its own');
  // Sizes beyond 2^53 come back exact, as BigInt.
  const big = et.inspect(c20.file('out.pte'));
  assert.deepEqual(big.methods[0].nonConstBufferSizes, [0, 1099511627793, 9223372036854775807n]);
  // null options mean defaults.
  assert.equal(et.inspect(pte, null).format, 'pte');
  // null options mean defaults: the .pte's EXTERNAL tensors need their .ptd files.
  assertCode(() => et.repack(c13.file('out.pte'), null), 'MISSING_EXTERNAL_DATA', /lin\.weight/);
  const r = et.repack(pte, { extractDelegateSegments: true, allowMissingData: true });
  assertBytes(r.pte, pte, 'repack');
  assert.deepEqual(r.ptd, {});
});
