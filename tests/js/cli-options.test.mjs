// CLI conventions (issues 11 and 14): exit codes as --help states, checked
// option values, "did you mean", notes when externalize did less than
// asked, progress on stderr, --json with "schema": 1 matching the shipped
// JSON Schema, and names from files escaped in human output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ARTIFACTS, CONFORMANCE, NPM, loadApi } from './helpers/common.mjs';
import { patternBytes, syntheticProgram } from './helpers/programs.mjs';
import { all, runCli } from './helpers/cli.mjs';

const tmp = mkdtempSync(join(tmpdir(), 'etpack-cli-options-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

const et = await loadApi();
const ADD = join(ARTIFACTS, 'arduino_add.pte');
const SCHEMA = JSON.parse(readFileSync(join(NPM, 'schema', 'cli-output.schema.json'), 'utf8'));

// A checker for the JSON Schema keywords the shipped schema uses (type,
// const, enum, required, properties, additionalProperties, items, minimum,
// $ref, oneOf): the schema is only useful if our output really matches it.
function check(schema, value, at = '$') {
  if (schema.$ref) return check(SCHEMA.$defs[schema.$ref.replace('#/$defs/', '')], value, at);
  const errors = [];
  const types = schema.type === undefined ? null : [schema.type].flat();
  const typeOf = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v);
  if (types && !types.some((t) => t === typeOf(value) || (t === 'number' && typeof value === 'number'))) return [`${at}: ${typeOf(value)} is not ${types}`];
  if ('const' in schema && value !== schema.const) errors.push(`${at}: ${JSON.stringify(value)} is not ${schema.const}`);
  if (schema.enum && !schema.enum.includes(value)) errors.push(`${at}: ${JSON.stringify(value)} not in ${schema.enum}`);
  if (schema.minimum !== undefined && typeof value === 'number' && value < schema.minimum) errors.push(`${at}: below ${schema.minimum}`);
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const k of schema.required ?? []) if (!Object.hasOwn(value, k)) errors.push(`${at}: missing ${k}`);
    for (const [k, v] of Object.entries(value)) {
      const sub = schema.properties?.[k] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : null);
      if (sub) errors.push(...check(sub, v, `${at}.${k}`));
    }
  }
  if (Array.isArray(value) && schema.items) value.forEach((v, i) => errors.push(...check(schema.items, v, `${at}[${i}]`)));
  if (schema.oneOf) {
    const matching = schema.oneOf.filter((s) => check(s, value, at).length === 0);
    if (matching.length !== 1) errors.push(`${at}: matches ${matching.length} of oneOf`);
  }
  return errors;
}

test('--json of diff, weights and export-weights carries schema 1 and matches the shipped JSON Schema', async () => {
  const everything = join(CONFORMANCE, '13_everything');
  const data = ['model.ptd', 'shard_b.ptd'].map((f) => join(everything, f));
  const dir = join(tmp, 'json-weights');
  mkdirSync(dir, { recursive: true });
  const weights = join(dir, 'w.safetensors');
  const exported = await runCli(['export-weights', join(everything, 'out.pte'), ...data, '-o', weights, '--json']);
  assert.equal(exported.status, 0, exported.stderr);
  const [written, same, different] = await all([
    () => runCli(['weights', join(everything, 'out.pte'), '--from', weights, '-o', join(dir, 'n.ptd'), '--json']),
    () => runCli(['diff', join(everything, 'out.pte'), join(everything, 'out.pte'), '--data-a', data[0], '--data-b', data[0], '--json']),
    () => runCli(['diff', join(everything, 'out.pte'), ADD, '--json']),
  ]);
  assert.deepEqual([written.status, same.status, different.status], [0, 0, 1], written.stderr + different.stderr);
  const docs = [exported, written, same, different].map((r) => JSON.parse(r.stdout));
  assert.deepEqual(docs.map((d) => d.command), ['export-weights', 'weights', 'diff', 'diff']);
  assert.equal(docs[3].equivalent, false);
  assert.ok(docs[3].methods.added.length + docs[3].methods.removed.length + docs[3].methods.changed.length > 0);
  for (const d of docs) {
    assert.equal(d.schema, 1);
    assert.deepEqual(check(SCHEMA, d), [], `${d.command}: ${JSON.stringify(d).slice(0, 200)}`);
  }
});

test('--json of inspect, validate and repack (written and refused) carries schema 1 and matches the shipped JSON Schema', async () => {
  const out = join(tmp, 'json', 'out.pte');
  const ptd = join(tmp, 'json', 'model.ptd');
  const rs = await all([
    () => runCli(['inspect', ADD, '--json']),
    () => runCli(['validate', ADD, '--json']),
    () => runCli(['repack', ADD, '-o', out, '--externalize', '--json']),
  ]);
  const docs = rs.map((r) => {
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout);
  });
  const truncated = join(tmp, 'truncated.pte');
  writeFileSync(truncated, readFileSync(ADD).subarray(0, 100));
  const [ptdInspect, badValidate, refused] = await all([
    () => runCli(['inspect', ptd, '--json']),
    () => runCli(['validate', truncated, '--json']),
    () => runCli(['repack', ADD, '-o', out, '--json']),
  ]);
  assert.equal(ptdInspect.status, 0, ptdInspect.stderr);
  assert.equal(badValidate.status, 1);
  assert.equal(refused.status, 2, 'out.pte exists now');
  docs.push(JSON.parse(ptdInspect.stdout), JSON.parse(badValidate.stdout), JSON.parse(refused.stdout));
  assert.deepEqual(docs.map((d) => d.command), ['inspect', 'validate', 'repack', 'inspect', 'validate', 'repack']);
  for (const d of docs) {
    assert.equal(d.schema, 1);
    assert.deepEqual(check(SCHEMA, d), [], `${d.command}: ${JSON.stringify(d).slice(0, 200)}`);
  }
  assert.equal(docs[5].error.code, 'OUTPUT_EXISTS');
  assert.match(refused.stderr, /OUTPUT_EXISTS/);
  assert.ok(JSON.parse(readFileSync(join(NPM, 'package.json'), 'utf8')).files.includes('schema/'), 'the schema is in the package');
});

test('exit codes as --help states: usage and I/O 2, content 1; did you mean', async () => {
  const out = join(tmp, 'codes', 'x.pte');
  const cases = [
    { args: ['inspect', tmp], status: 2, err: /IO_ERROR.*folder/ },
    { args: ['inspect', join(tmp, 'missing.pte')], status: 2, err: /IO_ERROR/ },
    { args: ['repack', ADD, '-o', out, '--externalise'], status: 2, err: /unknown option --externalise \(did you mean --externalize\?\)/ },
    { args: ['repack', ADD, '-o', out, '--segment-aligment', '64'], status: 2, err: /did you mean --segment-alignment/ },
    { args: ['inspekt', ADD], status: 2, err: /did you mean inspect/ },
    { args: ['validate', ADD, '--jsn'], status: 2, err: /did you mean --json/ },
    { args: ['repack', ADD, '-o', out, '--frobnicate'], status: 2, err: /unknown option --frobnicate\n/ },
  ];
  const rs = await all(cases.map((c) => () => runCli(c.args)));
  rs.forEach((r, i) => {
    assert.equal(r.status, cases[i].status, `${cases[i].args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, cases[i].err);
    assert.equal(r.stdout, '');
  });
  const help = await runCli(['--help']);
  assert.match(help.stdout, /Exit status \(every command\): 0 success; 1 [^]*2 usage, I\/O or network problems/);
});

test('alignments must be positive integers the runtime can load; tags must be plain file names', async () => {
  const out = join(tmp, 'bad', 'x.pte');
  const bad = [
    [['--segment-alignment', '1.5'], 'USAGE'],
    [['--segment-alignment', '-4'], 'USAGE'],
    [['--segment-alignment', '1e3'], 'USAGE'],
    [['--segment-alignment', String(2 ** 31)], 'INVALID_ALIGNMENT'],
    [['--segment-alignment', String(2 ** 30)], 'INVALID_ALIGNMENT'],  // the help's old limit; the library's is 2^24
    [['--segment-alignment', String(2 ** 24 + 1)], 'INVALID_ALIGNMENT'],
    [['--data-segment-alignment', String(2 ** 25)], 'INVALID_ALIGNMENT'],
    [['--constant-tensor-alignment', String(2 ** 25)], 'INVALID_ALIGNMENT'],
    [['--segment-alignment', String(2 ** 52)], 'INVALID_ALIGNMENT'],
    [['--data-segment-alignment', String(2 ** 31)], 'INVALID_ALIGNMENT'],
    [['--data-segment-alignment', '0'], 'INVALID_ALIGNMENT'],
    [['--constant-tensor-alignment', '48'], 'INVALID_ALIGNMENT'],
    [['--delegate-alignment', String(2 ** 31)], 'INVALID_ALIGNMENT'],
    [['--merge-tag', ''], 'INVALID_TAG'],
    [['--merge-tag', '.hidden'], 'INVALID_TAG'],
    [['--merge-tag', '..'], 'INVALID_TAG'],
    [['--merge-tag', 'a/b'], 'INVALID_TAG'],
    [['--merge-tag', 'a\\b'], 'INVALID_TAG'],
    [['--merge-tag', 'a\u001bb'], 'INVALID_TAG'],
    [['--externalize=../up'], 'INVALID_TAG'],
    [['--externalize='], 'INVALID_TAG'],
    [['--externalize=.'], 'INVALID_TAG'],
  ];
  const rs = await all(bad.map(([args]) => () => runCli(['repack', ADD, '-o', out, ...args])));
  rs.forEach((r, i) => {
    assert.equal(r.status, 2, `${bad[i][0].join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`error \\[${bad[i][1]}\\]`), bad[i][0].join(' '));
    assert.doesNotMatch(r.stderr, /\u001b/, 'the tag is escaped in the message');
  });
  assert.deepEqual(readdirSync(tmp).filter((n) => n === 'bad'), [], 'nothing written, no folder made');
  const ok = await runCli(['repack', ADD, '-o', join(tmp, 'good', 'x.pte'), '--segment-alignment', '96', '--constant-tensor-alignment', '64']);
  assert.equal(ok.status, 0, ok.stderr);
  // The limits the help states are the ones accepted.
  const help = await runCli(['repack', '--help']);
  assert.match(help.stdout, /--segment-alignment N +segment alignment \(default: the input's, or\s+128 without segment data; 1 to 2\^24\)/);
  assert.doesNotMatch(help.stdout, /2\^30/);
  const top = await runCli(['repack', ADD, '-o', join(tmp, 'top', 'x.pte'), '--segment-alignment', String(2 ** 24)]);
  assert.equal(top.status, 0, top.stderr);
});

test('notes when an --externalize-pattern matched nothing or externalize moved nothing', async () => {
  const [none, some] = await all([
    () => runCli(['repack', ADD, '-o', join(tmp, 'notes', 'a.pte'), '--externalize-pattern', 'no.such.*', '--json']),
    () => runCli(['repack', ADD, '-o', join(tmp, 'notes', 'b.pte'), '--externalize-pattern', '*', '--externalize-pattern', 'zz*']),
  ]);
  assert.equal(none.status, 0, none.stderr);
  assert.match(none.stderr, /note: --externalize-pattern 'no\.such\.\*' matched no tensor/);
  assert.match(none.stderr, /note: externalize moved no tensor/);
  const doc = JSON.parse(none.stdout);
  assert.equal(doc.notes.length, 2);
  assert.equal(some.status, 0, some.stderr);
  assert.match(some.stderr, /'zz\*' matched no tensor/);
  assert.doesNotMatch(some.stderr, /'\*' matched/);
  assert.doesNotMatch(some.stderr, /moved no tensor$/m);
});

test('progress on stderr for long writes (forced on for the test)', async () => {
  const r = await runCli(['repack', ADD, '-o', join(tmp, 'progress', 'p.pte')], { env: { ...process.env, EXECUTORCH_PACK_PROGRESS: 'always' } });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /^writing .*p\.pte: 1\.1 KiB of 1\.1 KiB \(100\.0%\)$/m);
  const quiet = await runCli(['repack', ADD, '-o', join(tmp, 'progress', 'q.pte')]);
  assert.equal(quiet.stderr, '', 'not a terminal: no progress');
});

test('names from files are escaped in human output (ESC, CR, LF cannot fake lines)', async () => {
  const evil = 'w\u001b[2J\rvalidate OK\nfake';
  const escaped = 'w\\x1b[2J\\x0dvalidate OK\\x0afake';
  const dir = join(tmp, 'escape');
  mkdirSync(dir);
  const ptd = join(dir, 'evil.ptd');
  writeFileSync(ptd, new et.FlatTensorSerializer().serialize({
    buffers: [patternBytes(16, 5)],
    namedData: { [evil]: { bufferIndex: 0, alignment: 1, tensorLayout: null } },
  }));
  const store = new et.NamedDataStore();
  store.addNamedData(evil, patternBytes(32, 6));
  const pte = join(dir, 'evil.pte');
  writeFileSync(pte, et.serializeForExecutorch({ program: syntheticProgram({ constants: [patternBytes(64, 7)] }) }, {}, undefined, store).pte);
  store.delete();
  // A file name with control characters, in an error message.
  const badName = join(dir, 'missing\u001b[31m\r\n.pte');
  const [ip, ie, ve, missing] = await all([
    () => runCli(['inspect', ptd]),
    () => runCli(['inspect', pte]),
    () => runCli(['validate', pte]),
    () => runCli(['inspect', badName]),
  ]);
  for (const r of [ip, ie, ve]) {
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /[\u001b\r]/);
    assert.ok(!r.stdout.split('\n').some((l) => l.startsWith('validate OK') || l.startsWith('fake')));
  }
  assert.ok(ip.stdout.includes(escaped), ip.stdout);
  assert.ok(ie.stdout.includes(escaped), ie.stdout);
  assert.equal(missing.status, 2);
  assert.doesNotMatch(missing.stderr, /[\u001b\r]/);
  assert.equal(missing.stderr.trimEnd().split('\n').length, 1, 'one line: the LF in the name is escaped');
  assert.ok(missing.stderr.includes('missing\\x1b[31m\\x0d\\x0a.pte'));
  // --json stays JSON: the name exact after parsing.
  const json = await runCli(['inspect', ptd, '--json']);
  assert.equal(JSON.parse(json.stdout).namedData.key[0], evil);
});

test('refusal details are escaped and exit statuses follow --help (report module)', async () => {
  const { detailLines, exitStatus, reportError } = await import(join(NPM, 'src', 'cli', 'report.mjs'));
  const { UsageError } = await import(join(NPM, 'src', 'cli', 'args.mjs'));
  const e = Object.assign(new Error('the .pte uses data that no given .ptd holds: k\u001b[2J\nOK'), {
    code: 'MISSING_EXTERNAL_DATA', keys: ['k\u001b[2J\rx', 'plain'],
    findings: [{ code: 'BAD', message: 'm\nfake', file: 'f.pte', offset: 8, path: null }],
  });
  const lines = detailLines(e);
  assert.deepEqual(lines, ['  missing: k\\x1b[2J\\x0dx', '  missing: plain', '  error BAD at f.pte offset 8: m\\x0afake']);
  let text = '';
  reportError(e, { write: (s) => { text += s; } });
  assert.equal(text.split('\n').length, 5, 'message + 3 details + final newline');
  assert.doesNotMatch(text, /[\u001b\r]/);
  assert.equal(exitStatus(e), 1);
  for (const code of ['IO_ERROR', 'OUTPUT_EXISTS', 'OUTPUT_IS_INPUT', 'INVALID_TAG', undefined]) assert.equal(exitStatus({ code }), 2, code);
  for (const code of ['INVALID_INPUT', 'INVALID_OUTPUT', 'DUPLICATE_KEY', 'MALFORMED_FILE']) assert.equal(exitStatus({ code }), 1, code);
  assert.equal(exitStatus(new UsageError('x', 'repack', 'INVALID_ALIGNMENT')), 2);
  assert.equal(exitStatus({ code: 'INTERRUPTED', exitStatus: 130 }), 130);
});
