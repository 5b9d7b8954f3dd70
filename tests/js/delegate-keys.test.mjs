// Delegates' named keys through the library (issue 39): inspect resolves
// each key to the file that holds it and splits the weights out of the
// delegate blobs; repack refuses to write files a delegate's backend could
// not init() from (MISSING_DELEGATE_DATA, before anything is written), and
// the guard the weights writer calls does the same; Core ML payloads name
// their model's I/O and specification version.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { SHARED } from './helpers/common.mjs';
import { loadApi } from './helpers/common.mjs';
import { runCli } from './helpers/cli.mjs';
import { guardDelegateKeys } from '../../npm/src/ops/delegate.mjs';

const ROOT = process.env.ETPACK_DELEGATES_DIR ?? join(SHARED, 'delegates');
const X08 = join(ROOT, 'xnnpack', 'x08_dynamic_qdint8_linear', 'pte_segment');
const X02 = join(ROOT, 'xnnpack', 'x02_linear_fp32_named', 'pte_inline');
const C01 = join(ROOT, 'coreml', 'c01_mlpackage_basic');
const have = existsSync(join(X08, 'out.pte')) && existsSync(join(X02, 'out.pte'));
const et = await loadApi();
const bytes = (path) => new Uint8Array(readFileSync(path));

test('inspect resolves each delegate key to the .ptd holding it, with dtypes, schemes and the weights split', { skip: !have }, async () => {
  const ptd = join(X08, 'xnnpack_weights.ptd');
  const s = et.inspect(bytes(join(X08, 'out.pte')), { dataFiles: { 'xnnpack_weights.ptd': bytes(ptd) } });
  const p = s.methods[0].delegates[0].payload;
  assert.equal(p.kind, 'xnnpack');
  assert.equal(p.namedKeys.length, 3);
  for (const k of p.namedKeys) {
    assert.equal(k.in, 'xnnpack_weights.ptd', k.key);
    assert.equal(Number(k.storedBytes) >= Number(k.bytes), true, k.key);
  }
  assert.ok(Object.keys(p.dtypes).some((d) => d.startsWith('xnn_datatype_')), JSON.stringify(p.dtypes));
  assert.ok(Object.keys(p.quantization).length > 0, JSON.stringify(p.quantization));
  assert.equal(p.model, null);
  // Alone: no file holds them.
  const alone = et.inspect(bytes(join(X08, 'out.pte'))).methods[0].delegates[0].payload;
  assert.ok(alone.namedKeys.every((k) => k.in === null && k.storedBytes === null));
  // x02 keeps its keys in the .pte: named data is weights.
  const x02 = et.inspect(bytes(join(X02, 'out.pte')));
  assert.ok(x02.methods[0].delegates[0].payload.namedKeys.every((k) => k.in === 'pte' && Number(k.storedBytes) > 0));
  const w = x02.weights;
  assert.equal(w.total, w.constants + w.namedData + w.delegateConstants);
  assert.equal(w.namedData, x02.bytesByCategory.namedData);
  assert.equal(w.delegateConstants + w.delegateGraphs, x02.bytesByCategory.delegateBlobs);
  // The CLI's text says where each key lives.
  const r = await runCli(['inspect', join(X08, 'out.pte'), ptd]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /delegate 0 payload: xnnpack, \d+ nodes/);
  assert.match(r.stdout, new RegExp(`key "[0-9a-f]{64}" \\(.*\\): in .*${basename(ptd)}`));
  assert.match(r.stdout, /Weights: /);
});

test('repack refuses before writing when no output would hold a delegate key, and passes with the .ptd', { skip: !have }, () => {
  const pte = bytes(join(X08, 'out.pte'));
  const ptd = bytes(join(X08, 'xnnpack_weights.ptd'));
  assert.throws(() => et.repack(pte), (e) => {
    assert.equal(e.code, 'MISSING_DELEGATE_DATA', e.message);
    assert.equal(e.keys.length, 3);
    assert.match(e.message, /delegate 0 \(XnnpackBackend\) of method 'forward' needs the named-data key '[0-9a-f_a-z]+'/);
    assert.match(e.message, /nothing was written/);
    return true;
  });
  const out = et.repack(pte, { data: { 'xnnpack_weights.ptd': ptd } });
  assert.deepEqual(Object.keys(out.ptd), ['xnnpack_weights']);
  assert.equal(et.validate(out.pte, { 'xnnpack_weights.ptd': out.ptd.xnnpack_weights }).ok, true);
  const merged = et.repack(pte, { merge: [ptd] });
  assert.equal(et.validate(merged.pte, Object.fromEntries(Object.entries(merged.ptd).map(([t, b]) => [`${t}.ptd`, b]))).ok, true);
  const allowed = et.repack(pte, { allowMissingData: true });
  assert.equal(allowed.missingKeys.length, 3);
});

test('the weights writer\'s guard: keys held by the file written or kept in the .pte', { skip: !have }, () => {
  const x08 = bytes(join(X08, 'out.pte'));
  assert.throws(() => guardDelegateKeys(et, x08, [], 'the .ptd written'), { code: 'MISSING_DELEGATE_DATA' });
  const keys = et.inspect(x08).methods[0].delegates[0].payload.namedKeys.map((k) => k.key);
  guardDelegateKeys(et, x08, keys, 'the .ptd written');
  // x02's keys are in its own named_data: kept when the .pte is not rewritten.
  const x02 = bytes(join(X02, 'out.pte'));
  assert.throws(() => guardDelegateKeys(et, x02, [], 'the .ptd written'), { code: 'MISSING_DELEGATE_DATA' });
  guardDelegateKeys(et, x02, [], 'the .ptd written', true);
});

test('a Core ML payload names its model\'s inputs, outputs and specification version', { skip: !existsSync(join(C01, 'blob.bin')) }, () => {
  const d = et.decodeDelegate(bytes(join(C01, 'blob.bin')), { backend: 'CoreMLBackend' });
  assert.deepEqual(d.model, {
    identifier: 'executorch_00000000-0000-4000-8000-000000000001', inputNames: ['x', 'y'], outputNames: ['z'],
    modelFile: 'model.mlpackage/Data/com.apple.CoreML/model.mlmodel', specificationVersion: 8,
  });
});
