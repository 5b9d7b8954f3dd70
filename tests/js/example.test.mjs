// The bundled example writes a .pte + .ptd pair that validates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { ROOT, loadApi } from './helpers/common.mjs';

test('examples/build-model.mjs writes model.pte + model.ptd that validate together', async () => {
  const out = mkdtempSync(join(tmpdir(), 'etpack-example-'));
  try {
    const stdout = execFileSync(process.execPath, [join(ROOT, 'examples', 'build-model.mjs'), out], { encoding: 'utf8' });
    assert.match(stdout, /validate: OK \(0 errors, 0 warnings\)/);
    const et = await loadApi();
    const pte = readFileSync(join(out, 'model.pte'));
    const ptd = readFileSync(join(out, 'model.ptd'));
    assert.deepEqual(et.validate(pte, { 'model.ptd': ptd }), { ok: true, errors: [], warnings: [] });
    const back = et.deserializePteBinary(pte);
    assert.equal(back.program.execution_plan[0].operators[0].name, 'aten::linear');
    assert.deepEqual(Object.keys(back.namedData.pteData), ['example.backend_blob']);
    const data = new et.FlatTensorSerializer().deserialize(ptd);
    assert.deepEqual(Object.keys(data.namedData), ['linear.bias', 'linear.weight_packed']);
    assert.deepEqual(Array.from(new Float32Array(Uint8Array.from(data.buffers[0]).buffer)), Array.from(new Float32Array([0.1, -0.2])));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
