// `validate FILE...` for CI: many files in one call with a summary line, and
// the outputs CI systems read. 41 files, one of them malformed: text, JSON,
// SARIF 2.1.0 (structure checked against what the 2.1.0 schema requires),
// JUnit XML (41 testcases, one failing) and GitHub workflow commands, each
// exit 1; --jobs 3 gives the same results as one thread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, CONFORMANCE } from './helpers/common.mjs';
import { runCli, scratch } from './helpers/scratch.mjs';

const { dir: tmp, file } = scratch('etpack-validate-many-');
const ADD = join(ARTIFACTS, 'add.pte');
const models = join(tmp, 'models');
mkdirSync(models);
const FILES = [];
for (let i = 0; i < 40; ++i) {
  const path = join(models, `m${String(i).padStart(2, '0')}.pte`);
  copyFileSync(ADD, path);
  FILES.push(path);
}
// The bad one: a name the formats must escape (a comma, a colon, a quote, an ampersand).
const BAD = file('bad, "x": & y.pte', Uint8Array.from([16, 0, 0, 0, 0x45, 0x54, 0x31, 0x32, ...new Array(40).fill(0xff)]));
FILES.splice(17, 0, BAD);

test('text: a line per model, then the summary line; exit 1', async () => {
  const r = await runCli(['validate', ...FILES]);
  assert.equal(r.status, 1, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.equal(lines.at(-1), 'validated 41 file(s) in 41 model(s): 40 passed, 1 failed; 1 error(s), 0 warning(s)');
  assert.equal(lines.filter((l) => / OK \(0 warning\(s\)\)$/.test(l)).length, 40);
  assert.ok(lines.some((l) => l.startsWith('error ') && l.includes(BAD)), r.stdout);
  const good = await runCli(['validate', ...FILES.filter((f) => f !== BAD)]);
  assert.equal(good.status, 0, good.stdout);
  assert.match(good.stdout, /40 passed, 0 failed/);
});

test('JSON: every model in results, findings with their file, the summary; --jobs 3 gives the same', async () => {
  const one = await runCli(['validate', ...FILES, '--json']);
  assert.equal(one.status, 1);
  const doc = JSON.parse(one.stdout);
  assert.equal(doc.ok, false);
  assert.equal(doc.results.length, 41);
  assert.deepEqual(doc.summary, { files: 41, models: 41, passed: 40, failed: 1, errors: 1, warnings: 0 });
  assert.equal(doc.errors.length, 1);
  assert.equal(doc.errors[0].file, BAD);
  const threads = await runCli(['validate', ...FILES, '--json', '--jobs', '3']);
  assert.equal(threads.status, 1, threads.stderr);
  assert.deepEqual(JSON.parse(threads.stdout), doc);
});

test('SARIF 2.1.0: one rule per code, the file as artifact location; exit 1', async () => {
  const r = await runCli(['validate', ...FILES, '--format', 'sarif']);
  assert.equal(r.status, 1, r.stderr);
  const log = JSON.parse(r.stdout);
  // What the SARIF 2.1.0 schema requires: version, runs[].tool.driver.name,
  // results[].message.text; rule ids unique; ruleIndex pointing at its rule;
  // level one of the schema's values; artifactLocation.uri a URI reference.
  assert.equal(log.version, '2.1.0');
  assert.match(log.$schema, /sarif-2\.1\.0/);
  assert.equal(log.runs.length, 1);
  const [run] = log.runs;
  assert.equal(run.tool.driver.name, 'executorch-pack');
  const ids = run.tool.driver.rules.map((rule) => rule.id);
  assert.equal(new Set(ids).size, ids.length);
  assert.equal(run.results.length, 1);
  const [result] = run.results;
  assert.equal(run.tool.driver.rules[result.ruleIndex].id, result.ruleId);
  assert.ok(['none', 'note', 'warning', 'error'].includes(result.level));
  assert.equal(result.level, 'error');
  assert.equal(typeof result.message.text, 'string');
  const uri = result.locations[0].physicalLocation.artifactLocation.uri;
  assert.equal(new URL(uri).protocol, 'file:');
  assert.equal(decodeURIComponent(new URL(uri).pathname), BAD);
  assert.equal(run.artifacts.length, 41);
  assert.equal(run.artifacts[result.locations[0].physicalLocation.artifactLocation.index].location.uri, uri);
  for (const res of run.results) {
    for (const key of Object.keys(res)) assert.ok(['ruleId', 'ruleIndex', 'level', 'message', 'locations', 'properties'].includes(key), key);
    const region = res.locations[0].physicalLocation.region;
    if (region) assert.ok(Number.isInteger(region.byteOffset) && region.byteOffset >= 0);
  }
});

test('JUnit XML: 41 testcases, one failure; exit 1', async () => {
  const r = await runCli(['validate', ...FILES, '--format', 'junit']);
  assert.equal(r.status, 1, r.stderr);
  const xml = r.stdout;
  assert.match(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites /);
  assert.match(xml, /<testsuites name="executorch-pack validate" tests="41" failures="1" errors="0">/);
  const cases = [...xml.matchAll(/<testcase classname="executorch-pack\.validate" name="([^"]*)"(\/>|>([\s\S]*?)<\/testcase>)/g)];
  assert.equal(cases.length, 41);
  const failing = cases.filter((c) => c[3]?.startsWith('<failure '));
  assert.equal(failing.length, 1);
  assert.equal(failing[0][1], BAD.replaceAll('&', '&amp;').replaceAll('"', '&quot;'));
  assert.doesNotMatch(xml.replace(/&(amp|lt|gt|quot|apos);/g, ''), /&/, 'every & escaped');
});

test('GitHub workflow commands: ::error file=...:: escaped as the runner reads it; exit 1', async () => {
  const r = await runCli(['validate', ...FILES, '--format', 'github']);
  assert.equal(r.status, 1, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  const errors = lines.filter((l) => l.startsWith('::error '));
  assert.equal(errors.length, 1);
  const escaped = BAD.replaceAll('%', '%25').replaceAll(':', '%3A').replaceAll(',', '%2C');
  assert.ok(errors[0].startsWith(`::error file=${escaped},title=executorch-pack `), errors[0]);
  assert.match(errors[0], /,title=executorch-pack [A-Z_]+::\S/);
  assert.equal(lines.at(-1), 'validated 41 file(s) in 41 model(s): 40 passed, 1 failed; 1 error(s), 0 warning(s)');
});

test('a program with its .ptd files after it is one model; files that cannot be read exit 2', async () => {
  const dir = join(CONFORMANCE, '13_everything');
  const r = await runCli(['validate', join(dir, 'out.pte'), join(dir, 'model.ptd'), join(dir, 'shard_b.ptd'), ADD, '--json']);
  assert.equal(r.status, 0, r.stdout);
  const doc = JSON.parse(r.stdout);
  assert.deepEqual(doc.results.map((m) => m.files.length), [3, 1]);
  const junit = await runCli(['validate', join(dir, 'out.pte'), join(dir, 'model.ptd'), join(dir, 'shard_b.ptd'), '--format', 'junit']);
  assert.match(junit.stdout, /tests="3" failures="0" errors="0"/);
  const missing = await runCli(['validate', ADD, join(tmp, 'missing.pte'), '--format', 'github']);
  assert.equal(missing.status, 2);
  assert.match(missing.stdout, /::error file=.*missing\.pte,title=executorch-pack IO_ERROR::/);
  const usage = await runCli(['validate', ADD, '--format', 'xml']);
  assert.equal(usage.status, 2);
});
