// Outputs never harm files (issue 29): an output is compared with every file
// the command read (a safetensors index's shards too), a FIFO, device or
// socket is never replaced (even with --force), temporaries go on
// SIGINT/SIGTERM/SIGHUP in every command, writing into the inputs' folder
// needs --in-place, and a closed output pipe ends quietly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { copyFileSync, lstatSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, CLI, CONFORMANCE, loadApi } from './helpers/common.mjs';
import { runCli, scratch } from './helpers/scratch.mjs';
import { float32, safetensorsBytes } from './helpers/safetensors.mjs';

const et = await loadApi();
const { dir: tmp, file } = scratch('etpack-outputs-');
const EVERYTHING = join(CONFORMANCE, '13_everything');
const EXTCONST = join(CONFORMANCE, '11_external_constants_only');

const weight = float32([1, 2, 3, 4, 5, 6, 7, 8, 9]);
const bias = float32([-1.5, 0, 2.25]);

test('weights --from an index never replaces a shard it read, --force or not', async () => {
  const shard1 = file('model-00001-of-00002.safetensors', safetensorsBytes([{ name: 'lin.weight', dtype: 'F32', shape: [3, 3], bytes: weight }]));
  const shard2 = file('model-00002-of-00002.safetensors', safetensorsBytes([{ name: 'lin.bias', dtype: 'F32', shape: [3], bytes: bias }]));
  const index = file('model.safetensors.index.json', JSON.stringify({
    weight_map: { 'lin.weight': 'model-00001-of-00002.safetensors', 'lin.bias': 'model-00002-of-00002.safetensors' },
  }));
  const before = readFileSync(shard2);
  for (const force of [[], ['--force']]) {
    const r = await runCli(['weights', join(EVERYTHING, 'out.pte'), '--from', index, '-o', shard2, ...force]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /OUTPUT_IS_INPUT.*model-00002-of-00002\.safetensors/);
    assert.deepEqual(readFileSync(shard2), before);
  }
  assert.ok(readFileSync(shard1).length > 0);
  const ok = await runCli(['weights', join(EVERYTHING, 'out.pte'), '--from', index, '-o', join(tmp, 'fine.ptd')]);
  assert.equal(ok.status, 0, ok.stderr);
  assert.ok(!readdirSync(tmp).some((n) => n.endsWith('.tmp')));
});

test('a FIFO or a socket as output is refused (OUTPUT_NOT_REGULAR, exit 2) and stays what it was', async (t) => {
  const fifo = join(tmp, 'pipe');
  execFileSync('mkfifo', [fifo]);
  const socket = join(tmp, 'sock');
  const server = createServer().listen(socket);
  await new Promise((ok) => server.once('listening', ok));
  t.after(() => server.close());
  const pte = join(EXTCONST, 'out.pte');
  for (const target of [fifo, socket]) {
    const runs = [
      ['repack', pte, join(EXTCONST, 'model.ptd'), '-o', target, '--force'],
      ['export-weights', pte, join(EXTCONST, 'model.ptd'), '-o', target, '--force'],
      ['weights', join(EVERYTHING, 'out.pte'), '--from', file('w.safetensors', safetensorsBytes([
        { name: 'lin.weight', dtype: 'F32', shape: [3, 3], bytes: weight }, { name: 'lin.bias', dtype: 'F32', shape: [3], bytes: bias }])),
      '-o', target, '--force'],
    ];
    for (const args of runs) {
      const r = await runCli(args);
      assert.equal(r.status, 2, `${args[0]}: ${r.stderr}`);
      assert.match(r.stderr, /OUTPUT_NOT_REGULAR/);
    }
  }
  assert.ok(lstatSync(fifo).isFIFO());
  assert.ok(lstatSync(socket).isSocket());
  // The API's writeTo keeps the same rule.
  const artifact = et.repack(readFileSync(pte), { allowMissingData: true, output: 'artifact' }).pte;
  await assert.rejects(artifact.writeTo(fifo), { code: 'OUTPUT_NOT_REGULAR' });
  assert.ok(lstatSync(fifo).isFIFO());
  assert.ok(!readdirSync(tmp).some((n) => n.endsWith('.tmp')));
});

test('repack -o DIR/ into the inputs\' own folder needs --in-place, and says it replaced them', async () => {
  const dir = join(tmp, 'model');
  mkdirSync(dir);
  copyFileSync(join(EXTCONST, 'out.pte'), join(dir, 'out.pte'));
  copyFileSync(join(EXTCONST, 'model.ptd'), join(dir, 'model.ptd'));
  const before = readFileSync(join(dir, 'out.pte'));
  const args = ['repack', join(dir, 'out.pte'), join(dir, 'model.ptd'), '-o', `${dir}/`, '--segment-alignment', '4096'];
  const refused = await runCli(args);
  assert.equal(refused.status, 2, refused.stderr);
  assert.match(refused.stderr, /OUTPUT_IS_INPUT.*--in-place/);
  assert.deepEqual(readFileSync(join(dir, 'out.pte')), before);
  const done = await runCli([...args, '--in-place']);
  assert.equal(done.status, 0, done.stderr);
  assert.match(done.stderr, /note: replaced in place.*out\.pte/);
  assert.notDeepEqual(readFileSync(join(dir, 'out.pte')), before, 'rewritten (the placeholder constant segment added)');
  assert.deepEqual(readdirSync(dir).sort(), ['model.ptd', 'out.pte']);
});

// Runs the CLI with SIGNAL sent once its temporary exists; resolves with
// how it ended and the folder's names afterwards.
function interrupted(args, dir, signal, watch = dir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    let sent = false;
    const names = (d) => {
      try {
        return readdirSync(d);
      } catch {
        return [];  // not made yet
      }
    };
    const poll = setInterval(() => {
      if (!sent && names(watch).some((n) => n.endsWith('.tmp'))) {
        sent = true;
        child.kill(signal);
      }
    }, 2);
    child.on('error', reject);
    child.on('exit', (code, sig) => {
      clearInterval(poll);
      resolve({ code, signal: sig, sent, stderr, names: readdirSync(dir) });
    });
  });
}

test('weights and export-weights remove their temporaries on SIGINT, SIGTERM and SIGHUP', async () => {
  // One 128 MiB external tensor: the write takes long enough to be interrupted.
  const n = 32 << 20;
  const program = {
    version: 0,
    execution_plan: [{
      name: 'forward',
      values: [{ val_type: 'Tensor', val: { scalar_type: 6, sizes: [n], dim_order: [0], extra_tensor_info: { fully_qualified_name: 'big.weight', location: 1 } } }],
      inputs: [0], outputs: [0], chains: [{ inputs: [0], outputs: [0], instructions: [] }], operators: [], delegates: [], non_const_buffer_sizes: [0],
    }],
    constant_buffer: [{ storage: [] }],
  };
  const dir = join(tmp, 'signals');
  mkdirSync(dir);
  const pte = join(tmp, 'big.pte');
  file('big.pte', et.serializePteBinary({ program }));
  const big = new Uint8Array(n * 4).fill(3);
  const checkpoint = file('big.safetensors', safetensorsBytes([{ name: 'big.weight', dtype: 'F32', shape: [n], bytes: big }]));
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    const r = await interrupted(['weights', pte, '--from', checkpoint, '-o', join(dir, 'out.ptd')], dir, signal);
    assert.ok(r.sent, `weights: the temporary was seen (${r.stderr})`);
    assert.equal(r.signal, signal, `weights ended by ${signal}: ${r.code} ${r.stderr}`);
    assert.deepEqual(r.names, [], `weights, ${signal}: nothing left`);
  }
  // export-weights: the .pte and its .ptd in, one safetensors out.
  const ptd = file('big.ptd', (await et.ptdFromWeights(pte, [checkpoint])).ptd);
  const r = await interrupted(['export-weights', pte, ptd, '-o', join(dir, 'out.safetensors')], dir, 'SIGINT');
  assert.ok(r.sent, r.stderr);
  assert.equal(r.signal, 'SIGINT', `${r.code} ${r.stderr}`);
  assert.deepEqual(r.names, []);
  // repack stops its writes itself (exit 128 + N); the folder it made goes too.
  for (const [signal, status] of [['SIGINT', 130], ['SIGHUP', 129]]) {
    const rp = await interrupted(['repack', pte, ptd, '-o', join(dir, 'made', 'deeper') + '/'], dir, signal, join(dir, 'made', 'deeper'));
    assert.ok(rp.sent, rp.stderr);
    assert.equal(rp.code, status, rp.stderr);
    assert.match(rp.stderr, /INTERRUPTED/);
    assert.deepEqual(rp.names, [], `repack, ${signal}: nothing left, no folder`);
  }
});

test('a closed output pipe ends quietly with the status of the work (EPIPE)', async () => {
  // The reader is gone before the CLI has started: every write meets EPIPE.
  const run = (args) => new Promise((resolve) => {
    execFile('bash', ['-c', `"${process.execPath}" "${CLI}" "$@" | { exec 0<&-; }; echo "status=\${PIPESTATUS[0]}"`, 'cli', ...args],
      (error, stdout, stderr) => resolve({ stdout, stderr }));
  });
  const ok = await run(['validate', join(ARTIFACTS, 'add.pte')]);
  assert.match(ok.stdout, /status=0/);
  assert.equal(ok.stderr, '');
  const bad = await run(['validate', join(EXTCONST, 'out.pte')]);  // errors: status 1
  assert.match(bad.stdout, /status=1/);
  assert.equal(bad.stderr, '');
  const inspect = await run(['inspect', join(EVERYTHING, 'out.pte')]);
  assert.match(inspect.stdout, /status=0/);
  assert.equal(inspect.stderr, '');
});
