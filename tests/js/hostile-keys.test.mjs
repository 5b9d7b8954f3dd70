// Keys from files and callers are ordinary own keys: `__proto__`,
// `constructor`, `hasOwnProperty`, NUL and any other code point; no
// prototype ever changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadApi } from './helpers/common.mjs';
import { syntheticProgram } from './helpers/programs.mjs';

const et = await loadApi();
const KEYS = ['__proto__', 'constructor', 'hasOwnProperty', 'toString', '\u0000', '\u0000\u0000x', '\u00001', 'a\u0000b', '\u{1F600}', 'valueOf'];

function assertOwnKeys(obj, keys, what) {
  assert.equal(Object.getPrototypeOf(obj), Object.prototype, `${what}: prototype unchanged`);
  for (const k of keys) assert.ok(Object.hasOwn(obj, k), `${what}: own key ${JSON.stringify(k)}`);
  assert.deepEqual(Object.keys(obj).sort(), [...keys].sort(), `${what}: exactly these keys`);
}

function storeWith(keys, tag = null) {
  const store = new et.NamedDataStore();
  keys.forEach((k, i) => store.addNamedData(k, new Uint8Array([i, 1, 2, 3]), { externalTag: tag }));
  return store;
}

test('NamedDataStore output keeps every key as an own property', () => {
  const store = storeWith(KEYS);
  try {
    assertOwnKeys(store.getNamedDataStoreOutput().pteData, KEYS, 'pteData');
  } finally {
    store.delete();
  }
  const tagged = storeWith(['x'], '__proto__');
  try {
    const out = tagged.getNamedDataStoreOutput();
    assertOwnKeys(out.externalData, ['__proto__'], 'externalData');
    assertOwnKeys(out.externalData.__proto__, ['x'], 'externalData.__proto__');
  } finally {
    tagged.delete();
  }
});

test('.pte named data with such keys: deserialize -> serialize round-trips byte for byte', () => {
  const store = storeWith(KEYS);
  try {
    const pte = et.serializePteBinary({ program: syntheticProgram({}), namedData: store });
    const back = et.deserializePteBinary(pte);
    assertOwnKeys(back.namedData.pteData, KEYS, 'deserialized pteData');
    back.program.named_data = null;
    const again = et.serializePteBinary({ program: back.program, namedData: back.namedData });
    assert.deepEqual(again, pte);
  } finally {
    store.delete();
  }
});

test('ptd tags `__proto__` and `constructor` become own keys of the result', () => {
  const store = new et.NamedDataStore();
  try {
    store.addNamedData('w', new Uint8Array(8), { externalTag: '__proto__' });
    store.addNamedData('v', new Uint8Array(9), { externalTag: 'constructor' });
    const { ptd } = et.serializeForExecutorch({ program: syntheticProgram({}) }, {}, undefined, store);
    assertOwnKeys(ptd, ['__proto__', 'constructor'], 'ptd');
    assert.ok(ptd.__proto__ instanceof Uint8Array);
    const report = et.validate(et.serializeForExecutorch({ program: syntheticProgram({}) }, {}, undefined, store).pte,
      JSON.parse('{}'));
    assert.equal(typeof report.ok, 'boolean');
  } finally {
    store.delete();
  }
});

test('.ptd keys round-trip through FlatTensorSerializer; input maps from JSON.parse are read by own keys', () => {
  const namedData = JSON.parse('{"__proto__": {"bufferIndex": 0}, "constructor": {"bufferIndex": 1}, "\\u0000": {"bufferIndex": 0}}');
  const fts = new et.FlatTensorSerializer();
  const ptd = fts.serialize({ buffers: [new Uint8Array([1, 2]), new Uint8Array([3])], namedData });
  const back = fts.deserialize(ptd);
  assertOwnKeys(back.namedData, ['__proto__', 'constructor', '\u0000'], 'ptd namedData');
  assert.equal(back.namedData.__proto__.bufferIndex, back.namedData['\u0000'].bufferIndex);
  const keys = et.inspect(ptd).namedData.key;
  assert.deepEqual([...keys].sort(), ['\u0000', '__proto__', 'constructor'].sort());
});

test('validate: a .ptd named `__proto__` is checked like any other', () => {
  const store = new et.NamedDataStore();
  try {
    store.addNamedData('w', new Uint8Array(8), { externalTag: 'model' });
    const { pte, ptd } = et.serializeForExecutorch({ program: syntheticProgram({}) }, {}, undefined, store);
    const ptds = JSON.parse('{"__proto__": 0}');
    ptds.__proto__ = ptd.model;  // own key: assignment to an own data property
    assert.ok(Object.hasOwn(ptds, '__proto__'));
    const report = et.validate(pte, ptds);
    assert.ok(report.ok, JSON.stringify(report.errors));
  } finally {
    store.delete();
  }
});

test('input objects with an own `__proto__` key in a program are written as a key', () => {
  const program = JSON.parse(JSON.stringify(syntheticProgram({})));
  const withKey = JSON.parse('{"__proto__": 1}');
  program.execution_plan[0].container_meta_type = Object.assign(withKey, program.execution_plan[0].container_meta_type);
  // An unknown field named __proto__ reaches the core (which names it) instead of vanishing.
  assert.throws(() => et.programToJson(program), (e) => e.code === 'SCHEMA_MISMATCH' && /__proto__/.test(e.message));
});

test('externalConstantMap from JSON.parse: a tag `__proto__` names a .ptd like any other tag', () => {
  const program = syntheticProgram({ constants: [new Uint8Array(16)] });
  const tensor = program.execution_plan[0].values[1].val;
  tensor.data_buffer_idx = 0;
  tensor.extra_tensor_info = { mutable_data_segments_idx: 0, fully_qualified_name: 'w', location: 1, device_type: 0, device_index: 0 };
  program.constant_buffer = [{ storage: [] }];
  const externalConstantMap = JSON.parse('{"__proto__": {"w": 0}}');
  const { pte, ptd } = et.serializeForExecutorch({ program, externalConstantMap, externalConstantBuffer: [new Uint8Array(16)] });
  assertOwnKeys(ptd, ['__proto__'], 'ptd');
  assert.ok(et.validate(pte, { '__proto__.ptd': ptd.__proto__ }).errors.every((f) => f.code !== 'INTERNAL'));
});
