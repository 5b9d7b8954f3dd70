// graph() with delegates: 'expand' (issue 39): the wrapped XNNPACK and
// Vulkan payloads drawn as their nodes, meeting graph.schema.json's shape,
// joined to the program's inputs and outputs; DOT draws them; an opaque
// delegate keeps its box with a note. The CLI's --delegates, and its JSON
// streamed from the core equal to the API's object as JSON.stringify lays
// it out (schema, command, ok first).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFORMANCE, NPM, SHARED, loadApi } from './helpers/common.mjs';
import { runCli } from './helpers/cli.mjs';

const DELEGATES = process.env.ETPACK_DELEGATES_DIR ?? join(SHARED, 'delegates');
const X08 = join(DELEGATES, 'xnnpack', 'x08_dynamic_qdint8_linear', 'pte_segment');
const V01 = join(DELEGATES, 'vulkan', 'v01_add_relu_mul', 'pte_inline', 'out.pte');
const SCHEMA = JSON.parse(readFileSync(join(NPM, 'schema', 'graph.schema.json'), 'utf8'));
let et;
before(async () => { et = await loadApi(); });

test('delegates expand: x08 and v01 become their payload nodes, joined to the program values', { skip: !existsSync(X08) }, () => {
  const x08 = et.graph(join(X08, 'out.pte'), { data: [join(X08, 'xnnpack_weights.ptd')], delegates: 'expand' }).methods[0];
  assert.deepEqual(x08.nodes.map((n) => [n.id, n.kind, n.label]), [
    ['in0', 'input', 'input v0: Float[2, 32]'],
    ['c0.i0.n0', 'delegateNode', 'XNNConvert'],
    ['c0.i0.n1', 'delegateNode', 'XNNFullyConnected'],
    ['out0', 'output', 'output v1: Float[2, 16]'],
  ]);
  assert.deepEqual(x08.edges.map((e) => [e.from, e.to, e.value, e.payloadValue ?? null]),
    [['in0', 'c0.i0.n0', 0, null], ['c0.i0.n0', 'c0.i0.n1', null, '1'], ['c0.i0.n1', 'out0', 1, null]]);
  const kinds = new Set(SCHEMA.$defs.node.properties.kind.enum);
  assert.ok(x08.nodes.every((n) => kinds.has(n.kind)));
  const v01 = et.graph(V01, { delegates: 'expand' }).methods[0];
  assert.deepEqual(v01.nodes.filter((n) => n.kind === 'delegateNode').map((n) => n.operator), ['aten.add.Tensor', 'aten.relu.default', 'aten.mul.Tensor']);
  // The payload's value 3 (add's output) feeds relu; mul reads relu's 4 and input 1 (program v1).
  assert.ok(v01.edges.some((e) => e.from === 'c0.i0.n0' && e.to === 'c0.i0.n1' && e.payloadValue === '3'));
  assert.ok(v01.edges.some((e) => e.from === 'in1' && e.to === 'c0.i0.n2'));
  const dot = et.graph(V01, { delegates: 'expand', format: 'dot' });
  assert.match(dot, /"m0\.c0\.i0\.n1" \[label="aten\.relu\.default", shape=component\]/);
  // Default: collapsed, as before.
  assert.deepEqual(et.graph(V01).methods[0].nodes.filter((n) => n.instruction).map((n) => n.kind), ['delegate']);
  assert.throws(() => et.graph(V01, { delegates: 'open' }), { code: 'INVALID_ARGUMENT' });
});

test('delegates expand: an opaque delegate stays one box and says why', () => {
  const g = et.graph(join(CONFORMANCE, '13_everything', 'out.pte'), { delegates: 'expand' });
  const boxes = g.methods.flatMap((m) => m.nodes).filter((n) => n.kind === 'delegate');
  assert.ok(boxes.length > 0);
  for (const n of boxes) assert.match(n.expandNote, /\w/);
});

test('CLI: graph --delegates expand; the streamed JSON is the API object laid out as every command prints it', { skip: !existsSync(X08) }, async () => {
  const pte = join(X08, 'out.pte');
  const r = await runCli(['graph', pte, '--delegates', 'expand']);
  assert.equal(r.status, 0, r.stderr);
  const api = et.graph(pte, { delegates: 'expand' });
  assert.equal(r.stdout, `${JSON.stringify({ schema: 1, command: 'graph', ok: true, methods: api.methods }, null, 2)}\n`);
  const everything = await runCli(['graph', join(CONFORMANCE, '13_everything', 'out.pte')]);
  const expected = et.graph(join(CONFORMANCE, '13_everything', 'out.pte'));
  assert.deepEqual(JSON.parse(everything.stdout), { schema: 1, command: 'graph', ok: true, methods: expected.methods });
  const bad = await runCli(['graph', pte, '--delegates', 'open']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--delegates must be one of collapse, expand/);
});
