// decodeDelegate() and `executorch-pack delegate` over every payload vector
// in ../shared/delegates (or $ETPACK_DELEGATES_DIR): header fields equal
// header.json's, a flatbuffer kind's graph equals graph.json in flatc's
// field order with floats as stored (case.json's exact_floats /
// exact_doubles; "inf"/"-inf"/"nan" as numbers) and 64-bit values exact
// (BigInt beyond 2^53), another kind's content equals decoded.json but for
// the vectors' own checks; a blob cut short is refused with a code; the
// .pte-wrapped vectors decode through the CLI, with their named keys found.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { SHARED, loadApi, parseLossless } from './helpers/common.mjs';
import { runCli } from './helpers/cli.mjs';

const ROOT = process.env.ETPACK_DELEGATES_DIR ?? join(SHARED, 'delegates');
const BACKENDS = {
  xnnpack: 'XnnpackBackend', vulkan: 'VulkanBackend', mps: 'MPSBackend', mlx: 'MLXBackend',
  native: 'NativeBackend', coreml: 'CoreMLBackend', qnn: 'QnnBackend', ethosu: 'EthosUBackend',
};
const et = await loadApi();
const vectors = Object.keys(BACKENDS).flatMap((kind) => (existsSync(join(ROOT, kind)) ? readdirSync(join(ROOT, kind)) : [])
  .map((name) => ({ kind, name, dir: join(ROOT, kind, name) }))
  .filter((v) => existsSync(join(v.dir, 'blob.bin'))));
// The references' 64-bit values exact (BigInt beyond 2^53), as decodeDelegate gives them.
const json = (path) => parseLossless(readFileSync(path, 'utf8'));

// graph.json with the stored values where flatc's print is not exact.
function patched(dir) {
  const graph = json(join(dir, 'graph.json'));
  const c = json(join(dir, 'case.json'));
  for (const [list, field] of [['exact_floats', 'float32_exact'], ['exact_doubles', 'float64_exact']]) {
    for (const e of c[list] ?? []) {
      const steps = [...e.path.slice(1).matchAll(/\.([^.[]+)|\[(\d+)\]/g)].map((m) => m[1] ?? Number(m[2]));
      const last = steps.pop();
      steps.reduce((at, s) => at[s], graph)[last] = Number(e[field]);
    }
  }
  return graph;
}

// Deep equality in key order; numbers and bigints by value, the quoted
// non-finite floats of graph.json as numbers.
function same(want, got, path) {
  const special = { inf: Infinity, '-inf': -Infinity, nan: NaN };
  if (typeof want === 'string' && Object.hasOwn(special, want) && typeof got === 'number') want = special[want];
  if (typeof want === 'number' || typeof want === 'bigint') {
    assert.ok(typeof got === 'number' || typeof got === 'bigint', `${path}: ${got}`);
    if (Number.isNaN(want)) assert.ok(Number.isNaN(got), path);
    else assert.ok(typeof got === 'bigint' || typeof want === 'bigint' ? BigInt(want) === BigInt(got) : Object.is(want + 0, got + 0), `${path}: ${want} vs ${got}`);
    if (typeof got === 'bigint') assert.ok(got > BigInt(Number.MAX_SAFE_INTEGER) || got < -BigInt(Number.MAX_SAFE_INTEGER), `${path}: small bigint`);
    return;
  }
  if (want === null || typeof want !== 'object') return assert.equal(got, want, path);
  if (Array.isArray(want)) {
    assert.ok(Array.isArray(got), path);
    assert.equal(got.length, want.length, path);
    want.forEach((w, i) => same(w, got[i], `${path}[${i}]`));
    return;
  }
  assert.deepEqual(Object.keys(got), Object.keys(want), path);
  for (const k of Object.keys(want)) same(want[k], got[k], `${path}.${k}`);
}

const NOT_DECODED = new Set(['sha256', 'name_field_hex', 'reserved_all_zero', 'padding_all_zero', 'context_binary_sha256',
  'context_binary_file', 'external_blocks', 'per_method_processed_bytes', 'named_data']);
const withoutChecks = (v) => (Array.isArray(v) ? v.map(withoutChecks) : v !== null && typeof v === 'object'
  ? Object.fromEntries(Object.entries(v).filter(([k]) => !NOT_DECODED.has(k)).map(([k, x]) => [k, withoutChecks(x)])) : v);

test('the vectors are there', () => assert.ok(vectors.length >= 35, `${vectors.length} vectors in ${ROOT}`));

for (const v of vectors) {
  test(`decodeDelegate ${v.kind}/${v.name}`, () => {
    const blob = readFileSync(join(v.dir, 'blob.bin'));
    const decoded = et.decodeDelegate(blob, { backend: BACKENDS[v.kind] });
    assert.equal(decoded.kind, v.kind);
    const header = json(join(v.dir, 'header.json'));
    for (const [k, value] of Object.entries(decoded.header)) {
      if (k === 'named_data_key' && !(k in header)) continue;
      assert.ok(k in header, `header.${k}`);
      same(header[k], value, `header.${k}`);
    }
    if (existsSync(join(v.dir, 'graph.json'))) {
      same(patched(v.dir), decoded.graph, '$');
    } else {
      assert.deepEqual(decoded.content, withoutChecks(json(join(v.dir, 'decoded.json'))));
    }
    // By magic alone, the same kind.
    assert.equal(et.decodeDelegate(blob).kind, v.kind);
    // Cut short anywhere: refused with a code (a sample of cuts per blob).
    for (const cut of new Set([0, 1, 8, blob.length >> 1, blob.length - 16, blob.length - 1].filter((n) => n >= 0 && n < blob.length))) {
      assert.throws(() => et.decodeDelegate(blob.subarray(0, cut), { backend: BACKENDS[v.kind] }),
        (e) => e.code === 'MALFORMED_FILE' && /offset/.test(e.message), `${v.name} cut at ${cut}`);
    }
  });
}

test('a blob of no known kind stays opaque', () => {
  assert.deepEqual(et.decodeDelegate(new Uint8Array([1, 2, 3]), { backend: 'OtherBackend' }), { kind: 'opaque', header: { blob_size: 3 } });
  assert.throws(() => et.decodeDelegate(new Uint8Array(3), { backend: 'XnnpackBackend' }), { code: 'MALFORMED_FILE' });
  assert.throws(() => et.decodeDelegate(new Uint8Array(3), { backnd: 'x' }), { code: 'INVALID_ARGUMENT' });
});

const wrapped = vectors.flatMap((v) => ['pte_inline', 'pte_segment'].filter((w) => existsSync(join(v.dir, w, 'out.pte')))
  .map((w) => ({ ...v, pte: join(v.dir, w, 'out.pte'), ptds: readdirSync(join(v.dir, w)).filter((f) => f.endsWith('.ptd')).map((f) => join(v.dir, w, f)) })));

test('executorch-pack delegate decodes the wrapped .pte files and finds their named keys', async () => {
  assert.ok(wrapped.length >= 6, `${wrapped.length} wrapped .pte files`);
  for (const w of wrapped) {
    const r = await runCli(['delegate', w.pte, ...w.ptds, '--json']);
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.kind, w.kind, w.pte);
    assert.equal(out.id, BACKENDS[w.kind]);
    assert.ok(out.summary.nodes > 0, w.pte);
    for (const k of out.namedKeys) assert.notEqual(k.in, null, `${w.pte}: ${k.key}`);
    const text = await runCli(['delegate', w.pte, ...w.ptds]);
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`kind: ${w.kind}`));
  }
  // x08's weights are in its .ptd: without it the keys are missing.
  const x08 = wrapped.find((w) => w.name.startsWith('x08') && w.ptds.length);
  if (x08) {
    const out = JSON.parse((await runCli(['delegate', x08.pte, '--json'])).stdout);
    assert.ok(out.namedKeys.length > 0 && out.namedKeys.every((k) => k.in === null));
  }
});

test('inspect --json shows each wrapped delegate\'s payload; validate wants x08\'s .ptd for its XNNPACK weights', async () => {
  for (const w of wrapped) {
    const r = await runCli(['inspect', w.pte, '--json']);
    assert.equal(r.status, 0, r.stderr);
    const payload = JSON.parse(r.stdout).methods[0].delegates[0].payload;
    assert.equal(payload.kind, w.kind, w.pte);
    assert.ok(payload.nodes > 0 && Object.keys(payload.operators).length > 0, w.pte);
  }
  const x08 = wrapped.find((w) => w.name.startsWith('x08') && w.pte.includes('pte_segment'));
  assert.ok(x08 && x08.ptds.length === 1);
  const alone = await runCli(['validate', x08.pte, '--json']);
  assert.equal(alone.status, 1, alone.stdout);
  const missing = JSON.parse(alone.stdout).errors.filter((e) => e.code === 'DELEGATE_NAMED_KEY_MISSING');
  assert.ok(missing.length > 0);
  for (const e of missing) assert.match(e.message, /delegate 0 \(XnnpackBackend\) of method 'forward' needs the named-data key '/);
  const withPtd = await runCli(['validate', x08.pte, x08.ptds[0], '--json']);
  assert.equal(withPtd.status, 0, withPtd.stdout);
});
