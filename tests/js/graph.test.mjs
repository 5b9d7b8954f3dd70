// graph(): for every artifact and conformance output, one instruction node
// per instruction inspect() counts, every edge between existing nodes, the
// shipped JSON Schema met, DOT that Graphviz renders; names that would break
// DOT or Mermaid are escaped; the CLI's -o follows the file-safety rules.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ARTIFACTS, CLI, CONFORMANCE, NPM, loadApi } from './helpers/common.mjs';
import { runCli } from './helpers/cli.mjs';
import { syntheticProgram } from './helpers/programs.mjs';

const SCHEMA = JSON.parse(readFileSync(join(NPM, 'schema', 'graph.schema.json'), 'utf8'));
const EVERYTHING = join(CONFORMANCE, '13_everything');
const hasDot = spawnSync('dot', ['-V']).status === 0;
let et, tmp;
before(async () => { et = await loadApi(); tmp = mkdtempSync(join(tmpdir(), 'etpack-graph-')); });
after(() => rmSync(tmp, { recursive: true, force: true }));

// The JSON Schema keywords graph.schema.json uses (type, const, enum,
// required, properties, items, minimum, $ref).
function check(schema, value, at = '$') {
  if (schema.$ref) return check(SCHEMA.$defs[schema.$ref.replace('#/$defs/', '')], value, at);
  const typeOf = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) || typeof v === 'bigint' ? 'integer' : typeof v);
  const types = schema.type === undefined ? null : [schema.type].flat();
  if (types && !types.includes(typeOf(value))) return [`${at}: ${typeOf(value)} is not ${types}`];
  const errors = [];
  if ('const' in schema && value !== schema.const) errors.push(`${at}: not ${schema.const}`);
  if (schema.enum && !schema.enum.includes(value)) errors.push(`${at}: ${value} not in ${schema.enum}`);
  if (schema.minimum !== undefined && typeof value === 'number' && value < schema.minimum) errors.push(`${at}: below ${schema.minimum}`);
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const k of schema.required ?? []) if (!Object.hasOwn(value, k)) errors.push(`${at}: missing ${k}`);
    for (const [k, v] of Object.entries(value)) if (schema.properties?.[k]) errors.push(...check(schema.properties[k], v, `${at}.${k}`));
  }
  if (Array.isArray(value) && schema.items) value.forEach((v, i) => errors.push(...check(schema.items, v, `${at}[${i}]`)));
  return errors;
}

// Every .pte of the artifacts and the conformance outputs, with the .ptd files beside it.
function programs() {
  const out = readdirSync(ARTIFACTS).filter((f) => f.endsWith('.pte')).map((f) => ({ pte: join(ARTIFACTS, f), data: [] }));
  for (const dir of readdirSync(CONFORMANCE)) {
    const path = join(CONFORMANCE, dir);
    if (!existsSync(join(path, 'out.pte'))) continue;
    out.push({ pte: join(path, 'out.pte'), data: readdirSync(path).filter((f) => f.endsWith('.ptd')).map((f) => join(path, f)) });
  }
  return out;
}

test('every artifact and conformance output: one instruction node per instruction, edges join nodes, schema met, DOT renders', (t) => {
  let files = 0, rendered = 0;
  for (const { pte, data } of programs()) {
    let summary;
    try { summary = et.inspect(pte); } catch { continue; }  // an error vector's output is no program
    ++files;
    const graph = et.graph(pte, { data });
    assert.deepEqual(check(SCHEMA, graph), [], pte);
    assert.equal(graph.methods.length, summary.methods.length, pte);
    graph.methods.forEach((m, i) => {
      const instructions = m.nodes.filter((n) => n.instruction !== null);
      assert.equal(instructions.length, summary.methods[i].instructionCount, `${pte} ${m.name}`);
      const ids = new Set(m.nodes.map((n) => n.id));
      assert.equal(ids.size, m.nodes.length, `${pte}: ids are unique`);
      for (const e of m.edges) assert.ok(ids.has(e.from) && ids.has(e.to), `${pte}: ${JSON.stringify(e)}`);
    });
    if (hasDot) {
      const dot = et.graph(pte, { data, format: 'dot' });
      const r = spawnSync('dot', ['-Tsvg'], { input: dot, maxBuffer: 64 << 20 });
      assert.equal(r.status, 0, `${pte}: ${r.stderr}`);
      assert.equal(String(r.stderr), '', `${pte}: Graphviz warns`);
      assert.match(String(r.stdout), /<svg/);
      ++rendered;
    }
  }
  assert.ok(files >= 30, `${files} programs`);
  if (!hasDot) t.diagnostic('Graphviz dot is not installed (scripts/install-deps.sh installs it): DOT not rendered');
  else assert.equal(rendered, files);
});

test('13_everything: delegates, constants, mutable buffers and external tensors with their .ptd, by value', () => {
  const data = ['model.ptd', 'shard_b.ptd'].map((f) => join(EVERYTHING, f));
  const graph = et.graph(join(EVERYTHING, 'out.pte'), { data });
  const kinds = new Set(graph.methods.flatMap((m) => m.nodes.map((n) => n.kind)));
  for (const k of ['delegate', 'constant', 'mutable', 'external', 'input', 'output', 'kernel']) assert.ok(kinds.has(k), `${k} in ${[...kinds]}`);
  const externals = graph.methods.flatMap((m) => m.nodes.filter((n) => n.kind === 'external'));
  assert.ok(externals.every((n) => ['model.ptd', 'shard_b.ptd'].includes(n.file)), JSON.stringify(externals));
  // Without the .ptd files, the keys stay and no file is named.
  const alone = et.graph(join(EVERYTHING, 'out.pte'));
  assert.ok(alone.methods.flatMap((m) => m.nodes.filter((n) => n.kind === 'external')).every((n) => n.file === null && typeof n.key === 'string'));
  // A data file named __proto__ is an ordinary name.
  const record = {};
  Object.defineProperty(record, '__proto__', { value: readFileSync(data[0]), enumerable: true });
  const proto = et.graph(join(EVERYTHING, 'out.pte'), { data: record });
  assert.ok(proto.methods.flatMap((m) => m.nodes).some((n) => n.kind === 'external' && n.file === '__proto__'));
  // Constants say where their bytes are, delegates their blob size.
  const values = graph.methods.flatMap((m) => m.values);
  const size = readFileSync(join(EVERYTHING, 'out.pte')).byteLength;
  const located = values.filter((v) => v.data?.kind === 'constant');
  assert.ok(located.length > 0 && located.every((v) => v.data.offset !== null && v.data.offset + v.data.size <= size), JSON.stringify(located));
  const delegates = graph.methods.flatMap((m) => m.nodes.filter((n) => n.kind === 'delegate'));
  assert.ok(delegates.length > 0 && delegates.every((d) => Number.isInteger(d.blobSize)));
  assert.throws(() => et.graph(join(EVERYTHING, 'out.pte'), { method: 'no such method' }), (e) => e.code === 'INVALID_ARGUMENT' && /no method named/.test(e.message));
  assert.throws(() => et.graph(join(EVERYTHING, 'out.pte'), { format: 'svg' }), (e) => e.code === 'INVALID_ARGUMENT');
});

test('names that would break DOT or Mermaid are escaped; JSON keeps them exact (a lone surrogate too)', (t) => {
  const program = syntheticProgram({ kernelCalls: 3 });
  const name = 'evil"op\\\n}; x -> y [label="\ud800';
  program.execution_plan[0].operators[0].name = name;
  const pte = et.serializePteBinary({ program: JSON.stringify(program) });
  const graph = et.graph(pte);
  assert.equal(graph.methods[0].nodes.find((n) => n.instruction?.index === 0).operator, name);
  const mermaid = et.graph(pte, { format: 'mermaid' });
  // Every label is one quoted token: no raw quote, bracket or newline inside it.
  const lines = mermaid.split('\n').filter((l) => l.includes('evil'));
  assert.equal(lines.length, 1, mermaid);
  assert.equal(lines[0], '    m0_c0_i0["evil#34;op#92;#10;#125;#59; x -#62; y #91;label=#34;#92;ud800.out"]');
  assert.ok(!mermaid.includes('\ufffd') && !mermaid.includes('\ud800'));
  const dot = et.graph(pte, { format: 'dot' });
  assert.ok(dot.includes('"evil\\"op\\\\\\n}; x -> y [label=\\"\\\\ud800.out"'), dot);
  if (!hasDot) { t.diagnostic('Graphviz dot is not installed: not rendered'); return; }
  const r = spawnSync('dot', ['-Tsvg'], { input: dot });
  assert.equal(r.status, 0, String(r.stderr));
  assert.equal(String(r.stdout).match(/<g id="node\d+" class="node">/g).length, graph.methods[0].nodes.length);
});

test('20,000 instructions: a node each, edges linear in the uses', () => {
  const pte = et.serializePteBinary({ program: JSON.stringify(syntheticProgram({ tensors: 64, kernelCalls: 20_000 })) });
  const [m] = et.graph(pte).methods;
  assert.equal(m.instructionCount, 20_000);
  assert.equal(m.nodes.filter((n) => n.kind === 'kernel').length, 20_000);
  assert.ok(m.edges.length <= 20_000 * 4 + m.nodes.length, `${m.edges.length} edges`);
});

test('CLI: graph prints JSON, writes DOT with -o, never over an input or an existing file', async () => {
  const pte = join(EVERYTHING, 'out.pte');
  const data = ['model.ptd', 'shard_b.ptd'].map((f) => join(EVERYTHING, f));
  const json = await runCli(['graph', pte, ...data, '--method', 'forward']);
  assert.equal(json.status, 0, json.stderr);
  const doc = JSON.parse(json.stdout);
  assert.equal(doc.schema, 1);
  assert.deepEqual(doc.methods.map((m) => m.name), ['forward']);
  const out = join(tmp, 'g.dot');
  const written = await runCli(['graph', pte, ...data, '--format', 'dot', '-o', out]);
  assert.equal(written.status, 0, written.stderr);
  assert.match(readFileSync(out, 'utf8'), /^digraph program \{/);
  const again = await runCli(['graph', pte, '--format', 'dot', '-o', out]);
  assert.equal(again.status, 2);
  assert.match(again.stderr, /OUTPUT_EXISTS/);
  const copy = join(tmp, 'copy.pte');
  writeFileSync(copy, readFileSync(pte));
  const overInput = await runCli(['graph', copy, '--format', 'mermaid', '-o', copy, '--force']);
  assert.equal(overInput.status, 2);
  assert.match(overInput.stderr, /OUTPUT_IS_INPUT/);
  assert.deepEqual(readFileSync(copy), readFileSync(pte), 'the input is untouched');
  const noMethod = await runCli(['graph', pte, '--method', 'nope']);
  assert.equal(noMethod.status, 1);
  assert.match(noMethod.stderr, /INVALID_ARGUMENT/);
  const badFormat = await runCli(['graph', pte, '--format', 'png']);
  assert.equal(badFormat.status, 2);
});

// The CLI writes a large graph to a pipe with blocking writes (issue 42): a
// slow reader gets every byte, the same as -o FILE; a reader that goes away
// (`| head`) ends it quietly with the status of the work.
test('CLI: graph to a slow pipe gets every byte; a reader that leaves ends it with status 0', async () => {
  const pte = join(tmp, 'p5000.pte');
  writeFileSync(pte, et.serializePteBinary({ program: JSON.stringify(syntheticProgram({ tensors: 64, kernelCalls: 5_000 })) }));
  const file = join(tmp, 'p5000.json');
  assert.equal((await runCli(['graph', pte, '-o', file])).status, 0);
  const expected = readFileSync(file);
  assert.ok(expected.length > 1 << 20, `${expected.length} bytes: more than a pipe holds`);
  const child = (onData) => new Promise((done) => {
    const c = spawn(process.execPath, [CLI, 'graph', pte]);
    const err = [];
    c.stderr.on('data', (d) => err.push(d));
    c.stdout.on('data', (d) => onData(d, c));
    c.on('close', (status) => done({ status, stderr: Buffer.concat(err).toString() }));
  });
  const got = [];
  let pauses = 0;
  const slow = await child((d, c) => {
    got.push(d);
    if (pauses++ < 5) {
      c.stdout.pause();
      setTimeout(() => c.stdout.resume(), 40);
    }
  });
  assert.equal(slow.status, 0, slow.stderr);
  assert.ok(Buffer.concat(got).equals(expected), 'stdout is the bytes -o writes');
  const gone = await child((d, c) => c.stdout.destroy());
  assert.equal(gone.status, 0, gone.stderr);
  assert.equal(gone.stderr, '');
});
