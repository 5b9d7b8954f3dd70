// The CLI's failures, whichever command: with --json one JSON document on
// stdout ({schema: 1, command, ok: false, error: {code, message,
// exitStatus}}, exitStatus = the process's), printed once by the dispatcher;
// the message stays on stderr, where a message of several lines is printed
// as lines (no literal "\x0a"), each escaped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ARTIFACTS, CONFORMANCE } from './helpers/common.mjs';
import { runCli, scratch } from './helpers/scratch.mjs';
import { float32, safetensorsBytes } from './helpers/safetensors.mjs';

const { dir: tmp, file } = scratch('etpack-cli-json-');
const ADD = join(ARTIFACTS, 'add.pte');
const EVERYTHING = join(CONFORMANCE, '13_everything', 'out.pte');
const missing = join(tmp, 'missing.pte');

function jsonError(r, command, code) {
  assert.notEqual(r.status, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.schema, 1);
  assert.equal(doc.command, command);
  assert.equal(doc.ok, false);
  assert.equal(doc.error.code, code, r.stderr);
  assert.equal(doc.error.exitStatus, r.status);
  assert.equal(typeof doc.error.message, 'string');
  assert.match(r.stderr, new RegExp(`error \\[${code}\\]`));
  return doc;
}

test('every command with --json answers an error with one JSON document on stdout', async () => {
  const out = join(tmp, 'out.bin');
  const cases = [
    [['inspect', missing, '--json'], 'inspect', 'IO_ERROR'],
    [['validate', missing, '--json'], 'validate', 'IO_ERROR'],
    [['repack', missing, '-o', out, '--json'], 'repack', 'IO_ERROR'],
    [['weights', ADD, '-o', out, '--json'], 'weights', 'USAGE'],
    [['export-weights', missing, '-o', out, '--json'], 'export-weights', 'IO_ERROR'],
    [['diff', ADD, '--json'], 'diff', 'USAGE'],
    [['inspect', '--json', '--no-such-option'], 'inspect', 'USAGE'],
  ];
  for (const [argv, command, code] of cases) {
    const r = await runCli(argv);
    jsonError(r, command, code);
    assert.equal(r.status, 2, argv.join(' '));
  }
  // Without --json, stdout stays empty.
  const plain = await runCli(['inspect', missing]);
  assert.equal(plain.status, 2);
  assert.equal(plain.stdout, '');
});

test('refusals carry their details: repack without the data its model needs', async () => {
  const r = await runCli(['repack', EVERYTHING, '-o', join(tmp, 'r.pte'), '--json']);
  const doc = jsonError(r, 'repack', 'MISSING_EXTERNAL_DATA');
  assert.equal(r.status, 1);
  assert.ok(doc.error.keys.length > 0);
  assert.match(doc.error.hint, /allow-missing-data/);
});

test('WEIGHTS_MISMATCH: one line per problem on stderr, no escaped line breaks; problems in the JSON', async () => {
  const wrong = file('wrong.safetensors', safetensorsBytes([{ name: 'lin.weight', dtype: 'F32', shape: [9], bytes: float32([1, 2, 3, 4, 5, 6, 7, 8, 9]) }]));
  const r = await runCli(['weights', EVERYTHING, '--from', wrong, '-o', join(tmp, 'w.ptd'), '--json']);
  const doc = jsonError(r, 'weights', 'WEIGHTS_MISMATCH');
  assert.equal(r.status, 1);
  assert.doesNotMatch(r.stderr, /\\x0a/);
  const lines = r.stderr.trimEnd().split('\n');
  assert.ok(lines.some((l) => /^ {2}.*lin\.weight/.test(l)), r.stderr);
  assert.ok(lines.some((l) => /^ {2}.*lin\.bias/.test(l)), r.stderr);
  assert.ok(!lines.slice(1).some((l) => l.startsWith('executorch-pack:')), r.stderr);
  assert.ok(doc.error.problems.length >= 2);
});
