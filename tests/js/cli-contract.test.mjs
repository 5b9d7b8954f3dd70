// The one contract of every command (npm/src/cli/contract.mjs): a malformed
// input exits 1 with and without --json; with --json the reply is one
// document with `ok: false` and an error code naming the file; the text
// names the file and escapes once; a file of another known kind says what
// it is and which command reads it; `executorch-pack --json` alone answers
// JSON; every success reply carries `ok: true`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, cpSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { ARTIFACTS, CONFORMANCE, NPM, SHARED } from './helpers/common.mjs';
import { runCli, scratch } from './helpers/scratch.mjs';

const { dir: tmp, file } = scratch('etpack-cli-contract-');
const ADD = join(ARTIFACTS, 'add.pte');
const ETDP = join(process.env.ETPACK_ETDUMP_DIR ?? join(SHARED, 'etdump'), 'add_r1', 'add_r1.etdp');
const EVERYTHING = join(CONFORMANCE, '13_everything');
// Bytes that are no known kind of file; the identifier position holds an
// escape character, which messages quote (escaped once: "\x1b").
const junk = (name) => file(name, Uint8Array.from([0x10, 0, 0, 0, 0x1b, 0x5b, 0x33, 0x31, ...new Array(120).fill(7)]));

const out = (name) => join(tmp, name);
const CASES = [
  ['inspect', (bad) => ['inspect', bad]],
  ['validate', (bad) => ['validate', bad]],
  ['graph', (bad) => ['graph', bad]],
  ['extract', (bad) => ['extract', bad, '--delegate', '0', '-o', out('blob.bin')]],
  ['diff', (bad) => ['diff', bad, ADD]],
  ['export-weights', (bad) => ['export-weights', bad, '-o', out('w.safetensors')]],
  ['profile', (bad) => ['profile', ADD, '--etdump', bad]],
  ['repack', (bad) => ['repack', bad, '-o', out('r.pte')]],
  ['unbundle', (bad) => ['unbundle', bad, '-o', out('cases')]],
];

for (const [command, argv] of CASES) {
  test(`${command}: a malformed input exits 1, names the file, --json {ok: false, error: {code, file}}`, async () => {
    const bad = junk(`bad-${command}.bin`);
    const text = await runCli(argv(bad));
    assert.equal(text.status, 1, `${command} text\n${text.stderr}`);
    // validate reports what it finds on stdout (a finding per line, then the
    // model's line); every other command's error is on stderr.
    const said = command === 'validate' ? text.stdout : text.stderr;
    if (command === 'validate') assert.match(said, /^error [A-Z_]+ at /m);
    else {
      assert.equal(text.stdout, '', 'errors go to stderr in text mode');
      assert.match(said, /^executorch-pack: error \[[A-Z_]+\]: /m);
    }
    assert.ok(said.includes(bad), `the text names ${bad}:\n${said}`);
    assert.doesNotMatch(`${text.stdout}${text.stderr}`, /\u001b/, 'no raw escape character reaches the terminal');
    assert.doesNotMatch(`${text.stdout}${text.stderr}`, /\\\\x/, 'escaped once');

    const json = await runCli([...argv(bad), '--json']);
    assert.equal(json.status, 1, `${command} --json\n${json.stderr}`);
    const doc = JSON.parse(json.stdout);
    assert.equal(doc.ok, false);
    assert.equal(doc.schema, 1);
    assert.equal(doc.command, command);
    // validate's reply is its report: the error is its first finding.
    const error = command === 'validate' ? doc.errors[0] : doc.error;
    assert.match(error.code, /^[A-Z][A-Z0-9_]+$/);
    assert.equal(error.file, bad);
    assert.equal(typeof error.message, 'string');
    if (command !== 'validate') assert.equal(doc.error.exitStatus, 1);
  });
}

test('the second file of a pair is named when it is the malformed one', async () => {
  const bad = junk('second.ptd');
  const r = await runCli(['diff', ADD, bad, '--json']);
  assert.equal(r.status, 1, r.stderr);
  assert.equal(JSON.parse(r.stdout).error.file, bad);
  const inspect = await runCli(['inspect', join(EVERYTHING, 'out.pte'), bad, '--json']);
  assert.equal(inspect.status, 1, inspect.stderr);
  assert.equal(JSON.parse(inspect.stdout).error.file, bad);
});

test('a file of a kind the command does not take says what it is and which command reads it', async () => {
  const etdp = out('run.etdp');
  copyFileSync(ETDP, etdp);
  const r = await runCli(['inspect', etdp]);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /error \[WRONG_FILE_KIND\]: .*run\.etdp: this is an ETDump/);
  assert.match(r.stderr, /executorch-pack profile PTE --etdump .*run\.etdp/);
  const json = await runCli(['validate', etdp, '--json']);
  assert.equal(json.status, 1);
  const doc = JSON.parse(json.stdout);
  assert.equal(doc.error.code, 'WRONG_FILE_KIND');
  assert.equal(doc.error.file, etdp);
  // A .pte given to unbundle: a program, read by inspect, validate, ...
  const pte = await runCli(['unbundle', ADD, '-o', out('u'), '--json']);
  assert.equal(pte.status, 1, pte.stderr);
  assert.equal(JSON.parse(pte.stdout).error.code, 'WRONG_FILE_KIND');
});

test('executorch-pack --json alone, --help --json and --version --json answer JSON', async () => {
  const alone = await runCli(['--json']);
  assert.equal(alone.status, 2);
  const doc = JSON.parse(alone.stdout);
  assert.equal(doc.ok, false);
  assert.equal(doc.command, null);
  assert.equal(doc.error.code, 'USAGE');
  assert.equal(doc.error.exitStatus, 2);
  const help = await runCli(['--help', '--json']);
  assert.equal(help.status, 0);
  const list = JSON.parse(help.stdout);
  assert.equal(list.ok, true);
  assert.ok(list.commands.some((c) => c.name === 'validate' && /validate FILE\.\.\./.test(c.synopsis)));
  const version = JSON.parse((await runCli(['--version', '--json'])).stdout);
  assert.equal(version.ok, true);
  assert.match(version.version, /^\d+\.\d+\.\d+/);
  const unknown = await runCli(['inspekt', '--json']);
  assert.equal(unknown.status, 2);
  assert.match(JSON.parse(unknown.stdout).error.message, /did you mean inspect/);
});

test('usage and I/O problems exit 2 and say so in JSON; a missing file is named', async () => {
  const missing = out('missing.pte');
  for (const argv of [['graph', missing], ['profile', ADD, '--etdump', missing], ['unbundle', missing, '-o', out('x')]]) {
    const r = await runCli([...argv, '--json']);
    assert.equal(r.status, 2, argv.join(' '));
    const doc = JSON.parse(r.stdout);
    assert.equal(doc.ok, false);
    assert.equal(doc.error.code, 'IO_ERROR');
    assert.equal(doc.error.file, missing);
  }
  const usage = await runCli(['graph', ADD, '--json', '--format', 'dot']);
  assert.equal(usage.status, 2);
  assert.equal(JSON.parse(usage.stdout).error.code, 'USAGE');
});

test('an installation without etpack.wasm: WASM_LOAD_FAILED, exit 2 (nothing was judged), in JSON too', async () => {
  // The published CLI bundle copied alone: none of the places it looks in holds the wasm.
  const cli = join(tmp, 'no-wasm', 'cli');
  cpSync(join(NPM, 'dist', 'cli'), cli, { recursive: true });
  const r = await new Promise((resolve) => {
    execFile(process.execPath, [join(cli, 'executorch-pack.mjs'), 'validate', ADD, '--json'], (error, stdout, stderr) =>
      resolve({ status: error ? error.code : 0, stdout, stderr }));
  });
  assert.equal(r.status, 2, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.error.code, 'WASM_LOAD_FAILED');
  assert.equal(doc.error.exitStatus, 2);
  assert.match(r.stderr, /^executorch-pack: error \[WASM_LOAD_FAILED\]: cannot load etpack\.wasm/);
});

test('every success reply carries ok: true (graph --json too); diff says ok: false when different', async () => {
  const replies = [
    ['inspect', ADD, '--json'],
    ['validate', ADD, '--json'],
    ['graph', ADD, '--json'],
    ['diff', ADD, ADD, '--json'],
    ['profile', ADD, '--etdump', ETDP, '--json'],
    ['export-weights', join(EVERYTHING, 'out.pte'), join(EVERYTHING, 'model.ptd'), join(EVERYTHING, 'shard_b.ptd'), '-o', out('all.safetensors'), '--json'],
  ];
  for (const argv of replies) {
    const r = await runCli(argv);
    assert.equal(r.status, 0, `${argv.join(' ')}\n${r.stderr}`);
    const doc = JSON.parse(r.stdout);
    assert.equal(doc.ok, true, argv[0]);
    assert.equal(doc.command, argv[0]);
  }
  const graph = JSON.parse((await runCli(['graph', ADD, '--json'])).stdout);
  assert.ok(graph.methods.length > 0);
  const different = await runCli(['diff', ADD, join(EVERYTHING, 'out.pte'), '--json']);
  assert.equal(different.status, 1);
  assert.equal(JSON.parse(different.stdout).ok, false);
});

test('--help of every command states the contract', async () => {
  for (const command of CASES.map(([c]) => c)) {
    const r = await runCli([command, '--help']);
    assert.equal(r.status, 0);
    assert.match(r.stdout, /Exit status \(every command\): 0 success; 1 an input is invalid/);
    assert.match(r.stdout, /Every error names its file/);
  }
});
