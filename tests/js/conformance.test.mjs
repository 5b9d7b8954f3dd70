// Every conformance vector through the JS API, byte for byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  caseNames, loadCase, kindOf, loadApi, parseLossless, normalize, assertBytes,
  expectedErrorCode, entriesToJs, storeToJs, configToJs,
} from './helpers/common.mjs';

const et = await loadApi();
const names = caseNames();

test('the conformance directory has cases', () => {
  assert.ok(names.length >= 63, `only ${names.length} cases found`);
});

function assertCode(fn, name) {
  const code = expectedErrorCode(name);
  assert.ok(code, `${name}: no error code in the README table`);
  assert.throws(fn, (e) => {
    assert.ok(e instanceof Error, 'thrown value is an Error');
    assert.equal(e.code, code, `${name}: code (message: ${e.message})`);
    assert.ok(e.message.length > 0);
    return true;
  });
}

function serializeCase(c, index, storeOverride) {
  const { spec, file, text } = c;
  // Alternate: program as JSON text, or as an object parsed with int64 kept exact.
  const program = index % 2 === 0 ? text(spec.program) : parseLossless(text(spec.program));
  const emitter = {
    program,
    mutableData: spec.mutable_data ? spec.mutable_data.map(file) : null,
    externalConstantMap: spec.external_constant_map,
    externalConstantBuffer: spec.external_constant_buffer.map(file),
  };
  const store = storeOverride !== undefined ? storeOverride
    : spec.named_data_store ? storeToJs(spec.named_data_store, file) : null;
  return et.serializeForExecutorch(emitter, configToJs(spec.config),
    new et.FlatTensorSerializer({ segmentAlignment: spec.data_serializer_config.segment_alignment }), store);
}

function runStoreOps(c) {
  const { spec, file } = c;
  const store = new et.NamedDataStore();
  for (const op of spec.store_ops) {
    if (op.op === 'add_named_data') {
      const l = op.tensor_layout;
      store.addNamedData(op.key, file(op.data), {
        alignment: op.alignment, externalTag: op.external_tag,
        tensorLayout: l ? { scalarType: l.scalar_type, sizes: l.sizes, dimOrder: l.dim_order } : null,
      });
    } else if (op.op === 'merge_named_data_store') {
      store.mergeNamedDataStore(storeToJs(op.other, file));
    } else if (op.op === 'externalize_pte_data') {
      store.externalizePteData(op.max_data_bytes, op.tag_prefix);
    } else {
      throw new Error(`unknown op ${op.op}`);
    }
  }
  return store.getNamedDataStoreOutput();
}

function assertStoreOutput(actual, expected, file, what) {
  assert.equal(actual.buffers.length, expected.buffers.length, `${what}: buffer count`);
  expected.buffers.forEach((f, i) => assertBytes(actual.buffers[i], file(f), `${what}.buffers[${i}]`));
  assert.deepEqual(actual.pteData, entriesToJs(expected.pte_data), `${what}.pteData`);
  const ext = {};
  for (const [tag, entries] of Object.entries(expected.external_data)) ext[tag] = entriesToJs(entries);
  assert.deepEqual(actual.externalData, ext, `${what}.externalData`);
  assert.deepEqual(Object.keys(actual.externalData), Object.keys(ext), `${what}: tag order`);
}

names.forEach((name, index) => {
  test(name, () => {
    const c = loadCase(name);
    const { spec, file } = c;
    switch (kindOf(spec)) {
      case 'serialize': {
        if (name.startsWith('16k')) {
          // Upstream crashes; a missing store is an empty store for us.
          const empty = { buffers: [], pteData: {}, externalData: {} };
          const withEmpty = serializeCase(c, index, empty);
          for (const missing of [null, undefined]) {
            const got = serializeCase(c, index, missing);
            assertBytes(got.pte, Buffer.from(withEmpty.pte), 'pte');
            assert.deepEqual(Object.keys(got.ptd), Object.keys(withEmpty.ptd));
            for (const tag of Object.keys(got.ptd)) assertBytes(got.ptd[tag], Buffer.from(withEmpty.ptd[tag]), `ptd ${tag}`);
          }
          assert.ok(Object.keys(withEmpty.ptd).length > 0, '16k writes its external constants to a .ptd');
          return;
        }
        if (spec.expected.error !== undefined) {
          assertCode(() => serializeCase(c, index), name);
          return;
        }
        const out = serializeCase(c, index);
        assertBytes(out.pte, file(spec.expected.pte), 'pte');
        assert.deepEqual(Object.keys(out.ptd), Object.keys(spec.expected.ptd), 'ptd tags in order');
        for (const [tag, f] of Object.entries(spec.expected.ptd)) assertBytes(out.ptd[tag], file(f), `ptd ${tag}`);
        return;
      }
      case 'store': {
        if (spec.expected.error !== undefined) {
          assertCode(() => runStoreOps(c), name);
          return;
        }
        assertStoreOutput(runStoreOps(c), spec.expected.output, file, 'output');
        return;
      }
      case 'deser_pte': {
        const back = et.deserializePteBinary(file(spec.deserialize_pte));
        const expected = parseLossless(c.text(spec.expected.program));
        const actual = normalize(back.program);
        const want = normalize(expected);
        // Our reader keeps an absent named_data absent; upstream writes [].
        for (const p of [actual, want]) if (p.named_data === null || p.named_data === undefined) p.named_data = [];
        assert.deepEqual(actual, want, 'program');
        const md = spec.expected.mutable_data;
        if (md === null || md === undefined) {
          assert.ok(back.mutableData === null || back.mutableData.length === 0, 'no mutable data');
        } else {
          assert.equal(back.mutableData.length, md.length);
          md.forEach((f, i) => assertBytes(back.mutableData[i], file(f), `mutableData[${i}]`));
        }
        const nd = spec.expected.named_data_store;
        if (nd === null || nd === undefined) assert.equal(back.namedData, null);
        else assertStoreOutput(back.namedData, nd, file, 'namedData');
        return;
      }
      case 'deser_ptd': {
        const back = new et.FlatTensorSerializer().deserialize(file(spec.deserialize_ptd));
        assert.equal(back.buffers.length, spec.expected.buffers.length);
        spec.expected.buffers.forEach((f, i) => assertBytes(back.buffers[i], file(f), `buffers[${i}]`));
        assert.deepEqual(back.namedData, entriesToJs(spec.expected.named_data));
        assert.deepEqual(Object.keys(back.namedData), Object.keys(spec.expected.named_data), 'key order');
        return;
      }
      default:
        assert.fail('unknown kind');
    }
  });
});
