// Where the CLI's start-up goes (issue 42): runs the published CLI
// (npm/dist/cli/, built by gen-package) under `node --cpu-prof` several
// times and sorts the main thread's samples into phases, then once under
// --trace-wasm-compilation-times for what V8 spent compiling wasm functions
// (Liftoff on first call, TurboFan tier-up in the background). Prints the
// median of each phase; asserts nothing (a benchmark, not a test). The
// whole-process ratio against `node -e 0` is measured from outside (median
// of interleaved pairs); this says what makes it up.
//
//   node bench/startup.mjs [RUNS] [-- CLI ARGS...]   (default: 9 runs of validate add.pte)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../npm/dist/cli/executorch-pack.mjs', import.meta.url));
const artifacts = process.env.ETPACK_ARTIFACTS_DIR ?? fileURLToPath(new URL('../../shared/artifacts', import.meta.url));
const split = process.argv.indexOf('--');
const runs = Number(process.argv[2] && process.argv[2] !== '--' ? process.argv[2] : 9);
const args = split < 0 ? ['validate', join(artifacts, 'add.pte')] : process.argv.slice(split + 1);
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

// The phase of one sample, from its stack (top frame first).
function phaseOf(names, seenUser) {
  const has = (re) => names.some((n) => re.test(n));
  const top = names[0];
  if (top.startsWith('(idle)')) return 'idle (waiting: I/O, a background compile)';
  if (top.startsWith('(garbage collector)')) return 'garbage collection';
  if (!seenUser) return 'Node bootstrap (as node -e 0)';
  if (has(/^instantiateWasm@/) || top.startsWith('Instance@')) return 'wasm instantiate';
  if (has(/^(callRuntimeCallbacks|createEtpackModule|__embind\w*)@/)) return 'embind registration';
  if (has(/^(compile|Module)@$/)) return 'WebAssembly.compile (main thread)';
  if (has(/^wasm-function\[/)) return 'core call (wasm run + first-call compiles)';
  if (has(/^(wasmBytes|read)@file:.*cli\/(cli-bundle|validate-fast)/)) return 'reading the wasm module';
  if (has(/compileSourceTextModule|module_job|esm\/|compileForInternalLoader|loader|^Script@node:vm|^readFileUtf8@/)) return 'loading and compiling JS modules';
  return 'other JS';
}

function phases(file) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const ms = {};
  let seenUser = false;
  profile.samples.forEach((id, i) => {
    const names = [];
    for (let x = id; x !== undefined; x = parent.get(x)) {
      const { functionName, url } = byId.get(x).callFrame;
      names.push(`${functionName}@${url}`);
    }
    seenUser ||= names.some((n) => n.includes('file://'));
    const phase = phaseOf(names, seenUser);
    ms[phase] = (ms[phase] ?? 0) + (profile.timeDeltas[i + 1] ?? 0) / 1000;
  });
  ms['total (profile)'] = (profile.endTime - profile.startTime) / 1000;
  return ms;
}

const dir = mkdtempSync(join(tmpdir(), 'etpack-startup-'));
try {
  const rows = [];
  for (let i = 0; i < runs; ++i) {
    const out = join(dir, String(i));
    const r = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-interval', '250', '--cpu-prof-dir', out, cli, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
    if (r.status !== 0 && r.status !== 1) throw new Error(`exit ${r.status}: ${r.stderr}`);
    rows.push(phases(join(out, readdirSync(out)[0])));
  }
  const keys = [...new Set(rows.flatMap(Object.keys))];
  console.log(`executorch-pack ${args.join(' ')}: main thread, median ms of ${runs} profiled runs`);
  for (const k of keys) console.log(`${median(rows.map((r) => r[k] ?? 0)).toFixed(1).padStart(8)}  ${k}`);

  const trace = spawnSync(process.execPath, ['--trace-wasm-compilation-times', cli, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 }).stdout;
  const tiers = {};
  const largest = [];
  for (const m of trace.matchAll(/#(\d+) using (\w+), took (\d+) ms.*?bodysize (\d+)/g)) {
    const t = (tiers[m[2]] ??= { count: 0, ms: 0 });
    t.count += 1, t.ms += Number(m[3]);
    largest.push({ index: Number(m[1]), tier: m[2], ms: Number(m[3]), body: Number(m[4]) });
  }
  console.log('wasm functions compiled (one run; wall ms of each compile, TurboFan on a background thread):');
  for (const [tier, t] of Object.entries(tiers)) console.log(`  ${tier}: ${t.count} functions, ${t.ms} ms`);
  for (const f of largest.sort((a, b) => b.ms - a.ms).slice(0, 3)) console.log(`  #${f.index} (${f.tier}): ${f.ms} ms, body ${f.body} bytes`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
