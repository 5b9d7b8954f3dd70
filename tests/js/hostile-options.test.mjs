// Option misuse, wrong JS types, detached buffers, cycles and BigInts: every
// failure is an EtpackError with a documented code and a readable reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadApi } from './helpers/common.mjs';
import { syntheticProgram } from './helpers/programs.mjs';

const et = await loadApi();
const program = syntheticProgram({ constants: [new Uint8Array(64)] });
const pte = et.serializePteBinary({ program });

const fails = (fn, code, message = undefined) => assert.throws(fn, (e) => {
  assert.ok(e instanceof et.EtpackError, `an EtpackError, got ${e?.constructor?.name}: ${e?.message}`);
  assert.equal(e.code, code, e.message);
  if (message) assert.match(e.message, message);
  return true;
});

test('unknown option keys are INVALID_ARGUMENT with a "did you mean"', () => {
  fails(() => et.repack(pte, { externalise: true }), 'INVALID_ARGUMENT', /did you mean "externalize"/);
  fails(() => et.repack(pte, { externalize: { minbytes: 1 } }), 'INVALID_ARGUMENT', /did you mean "minBytes"/);
  fails(() => et.repack(pte, { segment_alignment: 64 }), 'INVALID_ARGUMENT', /did you mean "segmentAlignment"/);
  fails(() => et.serializePteBinary({ program }, { segmentAlignmnet: 64 }), 'INVALID_ARGUMENT', /did you mean "segmentAlignment"/);
  fails(() => et.serializePteBinary({ program }, {}, { outptu: 'blob' }), 'INVALID_ARGUMENT', /did you mean "output"/);
  fails(() => et.serializeForExecutorch({ program }, { delegateAlign: 16 }), 'INVALID_ARGUMENT', /delegateAlign/);
  fails(() => new et.FlatTensorSerializer({ segment_alignment: 64 }), 'INVALID_ARGUMENT', /did you mean "segmentAlignment"/);
  fails(() => et.inspect(pte, { kinds: 'pte' }), 'INVALID_ARGUMENT', /did you mean "kind"/);
  fails(() => et.validate(pte, {}, { runtim: 'x' }), 'INVALID_ARGUMENT', /did you mean "runtime"/);
  const store = new et.NamedDataStore();
  try {
    fails(() => store.addNamedData('k', new Uint8Array(1), { aligment: 4 }), 'INVALID_ARGUMENT', /did you mean "alignment"/);
    fails(() => store.addNamedData('k', new Uint8Array(1), { external_tag: 'x' }), 'INVALID_ARGUMENT', /did you mean "externalTag"/);
  } finally {
    store.delete();
  }
  // An own __proto__ key (JSON.parse) is an unknown option, not a prototype.
  fails(() => et.repack(pte, JSON.parse('{"__proto__": {"externalize": true}}')), 'INVALID_ARGUMENT', /__proto__/);
  // Options other helpers add are known keys.
  for (const key of ['data', 'allowMissingData', 'signal']) {
    assert.doesNotThrow(() => { try { et.repack(pte, { [key]: key === 'allowMissingData' ? false : null }); } catch (e) { if (/no option/.test(e.message)) throw e; } });
  }
});

test('alignments must be positive integers the runtime can load, within bounds', () => {
  for (const bad of [1.5, 0, -16, NaN, Infinity, 2 ** 52, 2 ** 31]) {
    fails(() => et.repack(pte, { segmentAlignment: bad }), 'INVALID_ALIGNMENT');
    fails(() => et.repack(pte, { dataSegmentAlignment: bad }), 'INVALID_ALIGNMENT');
    fails(() => new et.FlatTensorSerializer({ segmentAlignment: bad }), 'INVALID_ALIGNMENT');
    fails(() => et.serializePteBinary({ program }, { constantTensorAlignment: bad }), 'INVALID_ALIGNMENT');
  }
  fails(() => et.serializePteBinary({ program }, { constantTensorAlignment: 24 }), 'INVALID_ALIGNMENT', /power of two/);
  fails(() => et.serializeForExecutorch({ program }, { delegateAlignment: 48 }), 'INVALID_ALIGNMENT', /power of two/);
  fails(() => et.repack(pte, { segmentAlignment: '64' }), 'INVALID_ARGUMENT');
  // 96 is a valid segment alignment upstream; BigInt alignments are read exactly.
  assert.ok(et.repack(pte, { segmentAlignment: 96 }).pte.length > 0);
  assert.ok(et.repack(pte, { segmentAlignment: 64n }).pte.length > 0);
  assert.ok(et.repack(pte, { externalize: { minBytes: 1n } }).pte.length > 0);
  fails(() => et.repack(pte, { externalize: { minBytes: -1 } }), 'INVALID_ARGUMENT');
  fails(() => et.repack(pte, { externalize: { minBytes: 2n ** 64n } }), 'INVALID_ARGUMENT');
  fails(() => et.repack(pte, { mergeTag: '' }), 'INVALID_ARGUMENT', /empty/);
  fails(() => et.repack(pte, { output: 'file' }), 'INVALID_ARGUMENT');
  fails(() => et.repack(pte, { extractDelegateSegments: 'yes' }), 'INVALID_ARGUMENT');
});

test('wrong JS types anywhere are INVALID_ARGUMENT', () => {
  fails(() => et.inspect(42), 'INVALID_ARGUMENT');
  fails(() => et.inspect(pte, 'pte'), 'INVALID_ARGUMENT');
  fails(() => et.validate(pte, 'model.ptd'), 'INVALID_ARGUMENT');  // an array or a record (data-files.mjs)
  fails(() => et.serializeForExecutorch(null), 'INVALID_ARGUMENT');
  fails(() => et.serializePteBinary({ program: 5 }), 'INVALID_ARGUMENT');
  fails(() => et.serializePteBinary({ program }, 'config'), 'INVALID_ARGUMENT');
  fails(() => et.serializeForExecutorch({ program }, {}, { serialize: 5 }), 'INVALID_ARGUMENT');
  fails(() => et.serializeForExecutorch({ program, externalConstantMap: [] }), 'INVALID_ARGUMENT');
  fails(() => new et.FlatTensorSerializer().serialize({ buffers: [new Uint8Array(1)], namedData: { k: { bufferIndex: 'x' } } }), 'INVALID_ARGUMENT');
  fails(() => new et.FlatTensorSerializer().serialize({ buffers: [new Uint8Array(1)], namedData: { k: null } }), 'INVALID_ARGUMENT');
  fails(() => new et.FlatTensorSerializer().serialize({ buffers: [new Uint8Array(1)], namedData: { k: { bufferIndex: 0, tensorLayout: { scalarType: 6, sizes: 'ab' } } } }), 'INVALID_ARGUMENT');
  const store = new et.NamedDataStore();
  try {
    fails(() => store.addNamedData(Symbol('k'), new Uint8Array(1)), 'INVALID_ARGUMENT');
    fails(() => store.externalizePteData(1.5, 'x'), 'INVALID_ARGUMENT');
    fails(() => store.mergeNamedDataStore(null), 'INVALID_ARGUMENT');
  } finally {
    store.delete();
  }
});

test('BigInt where a Number is expected is read exactly or refused with a code', () => {
  const fts = new et.FlatTensorSerializer();
  const ptd = fts.serialize({ buffers: [new Uint8Array(4)], namedData: { k: { bufferIndex: 0n, alignment: 8n, tensorLayout: { scalarType: 6, sizes: [1n], dimOrder: [0n] } } } });
  assert.equal(fts.deserialize(ptd).namedData.k.bufferIndex, 0);
  fails(() => fts.serialize({ buffers: [new Uint8Array(4)], namedData: { k: { bufferIndex: 2n ** 40n } } }), 'INVALID_ARGUMENT');
  const store = new et.NamedDataStore();
  try {
    store.addNamedData('k', new Uint8Array(4), { alignment: 4n });
    store.externalizePteData(10n, 'x');
  } finally {
    store.delete();
  }
});

test('detached ArrayBuffers are named, never a TypeError', () => {
  const detached = () => {
    const b = new ArrayBuffer(16);
    structuredClone(b, { transfer: [b] });
    return b;
  };
  fails(() => et.inspect(detached()), 'INVALID_ARGUMENT', /detached/);
  const view = new Uint8Array(new ArrayBuffer(16), 4);
  structuredClone(view.buffer, { transfer: [view.buffer] });
  fails(() => et.validate(view), 'INVALID_ARGUMENT', /detached/);
  fails(() => et.deserializePteBinary(detached()), 'INVALID_ARGUMENT', /detached/);
  fails(() => et.repack(detached()), 'INVALID_ARGUMENT', /detached/);
  const store = new et.NamedDataStore();
  try {
    fails(() => store.addNamedData('k', detached()), 'INVALID_ARGUMENT', /detached/);
  } finally {
    store.delete();
  }
  const p = syntheticProgram({ constants: [new Uint8Array(8)] });
  p.constant_buffer[1].storage = detached();
  fails(() => et.serializePteBinary({ program: p }), 'INVALID_ARGUMENT', /detached/);
});

test('cycles, deep nesting, throwing getters and toJSON are coded', () => {
  const cyclic = syntheticProgram({});
  cyclic.execution_plan[0].values[0].val.extra = cyclic;
  fails(() => et.programToJson(cyclic), 'INVALID_ARGUMENT', /cycle/);
  const deep = syntheticProgram({});
  let node = deep.execution_plan[0];
  for (let i = 0; i < 100_000; ++i) node = node.deeper = {};
  fails(() => et.serializePteBinary({ program: deep }), 'RESOURCE_LIMIT', /nests deeper/);
  const getter = syntheticProgram({});
  Object.defineProperty(getter, 'version', { enumerable: true, get() { throw new Error('boom'); } });
  fails(() => et.programToJson(getter), 'INVALID_ARGUMENT', /boom/);
  const toJSON = syntheticProgram({});
  toJSON.execution_plan[0].values[0] = { toJSON() { throw new Error('nope'); } };
  fails(() => et.programToJson(toJSON), 'INVALID_ARGUMENT', /nope/);
  assert.throws(() => et.programToJson('{"version": 0, "execution_plan": [' + '['.repeat(100_000)),
    (e) => e instanceof et.EtpackError && ['INVALID_JSON', 'SCHEMA_MISMATCH'].includes(e.code));
});

test('the caller\'s own callback errors reach the caller unchanged', () => {
  class Stop extends Error {}
  assert.throws(() => et.serializePteBinary({ program }, {}, { onProgress() { throw new Stop('stop'); } }), Stop);
});

test('a planned output over 2^40 bytes is refused before anything is written', () => {
  // lcm(segment alignment, named-data alignment) of two coprime values near
  // the bound pads every segment by terabytes.
  const store = new et.NamedDataStore();
  try {
    for (let i = 0; i < 4; ++i) store.addNamedData(`k${i}`, new Uint8Array([i]), { alignment: 2 ** 24 - 1 - 2 * i });
    fails(() => et.serializePteBinary({ program, namedData: store }, { segmentAlignment: 2 ** 24 }), 'RESOURCE_LIMIT', /2\^40/);
  } finally {
    store.delete();
  }
});

test('Artifact methods check their options too (chunkSize 0 would never end)', async () => {
  const [artifact] = [et.serializePteBinary({ program }, {}, { output: 'artifact' })];
  fails(() => artifact.toBytes({ onProgres() {} }), 'INVALID_ARGUMENT', /did you mean "onProgress"/);
  fails(() => artifact.toBlob({ typ: 'x' }), 'INVALID_ARGUMENT', /did you mean "type"/);
  await assert.rejects(artifact.chunks({ chunkSize: 0 }).next(), { code: 'INVALID_ARGUMENT' });
  fails(() => artifact.stream({ chunkSize: 1.5 }), 'INVALID_ARGUMENT');
  const chunks = [];
  for await (const c of artifact.chunks({ chunkSize: 7 })) chunks.push(c);
  assert.equal(chunks.reduce((n, c) => n + c.byteLength, 0), artifact.size);
});

test('openUrl, openBlob and init refuse unknown option keys too', async () => {
  await assert.rejects(et.openUrl('http://127.0.0.1:9/x.pte', { timeout: 5 }), (e) => e.code === 'INVALID_ARGUMENT' && /did you mean "timeoutMs"/.test(e.message));
  await assert.rejects(et.openBlob(new Blob([pte]), { digets: true }), (e) => e.code === 'INVALID_ARGUMENT' && /did you mean "digest"/.test(e.message));
  const { default: init } = await import('../../npm/index.node.mjs');
  await assert.rejects(init({ locatefile: () => '' }), (e) => e.code === 'INVALID_ARGUMENT' && /did you mean "locateFile"/.test(e.message));
});
