// A JS-level fuzz over the public API: conformance and artifact files with
// mutated bytes, program objects with hostile values, options with stray
// keys and values. Seeded and deterministic in what it tries; bounded by an
// iteration count and a wall-clock budget (ETPACK_JS_FUZZ_SEED,
// ETPACK_JS_FUZZ_ITERATIONS, ETPACK_JS_FUZZ_SECONDS). It fails on any error
// that is not an EtpackError with a documented code, a wasm trap, a call
// that takes over 1 s of CPU time, or a wasm heap left over its bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, CONFORMANCE, NPM, ROOT, loadApi } from './helpers/common.mjs';
import { syntheticProgram, patternBytes } from './helpers/programs.mjs';

const SEED = Number(process.env.ETPACK_JS_FUZZ_SEED ?? 0x5eed);
const ITERATIONS = Number(process.env.ETPACK_JS_FUZZ_ITERATIONS ?? 2500);
const SECONDS = Number(process.env.ETPACK_JS_FUZZ_SECONDS ?? 25);
const CALL_CPU_LIMIT_MS = 1000;
const HEAP_LIMIT = 160 << 20;  // the API replaces an instance above 128 MiB

const et = await loadApi();
const REGRESSIONS = join(ROOT, 'tests', 'fuzz', 'regressions');

// The documented error codes, gathered as scripts/gen-package.mjs does for
// types/codes.d.ts: the core's (src/core/error.cpp) and the JS layer's
// literal `EtpackError('CODE'` (plus invalidArgument's).
function documentedCodes() {
  const codes = new Set(['INVALID_ARGUMENT']);
  for (const m of readFileSync(join(ROOT, 'src', 'core', 'error.cpp'), 'utf8').matchAll(/return "([A-Z0-9_]+)"/g)) codes.add(m[1]);
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory() && !['node_modules', 'dist', 'types'].includes(e.name)) walk(p);
      else if (e.name.endsWith('.mjs')) for (const m of readFileSync(p, 'utf8').matchAll(/EtpackError\(\s*['"]([A-Z0-9_]+)['"]/g)) codes.add(m[1]);
    }
  };
  walk(NPM);
  codes.delete('OK');
  return codes;
}
const CODES = documentedCodes();

// xorshift32: the same seed tries the same inputs.
function rng(seed) {
  let x = seed >>> 0 || 1;
  const next = () => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x;
  };
  const r = { next, below: (n) => next() % n, pick: (list) => list[next() % list.length], chance: (p) => next() / 2 ** 32 < p };
  return r;
}

function corpus() {
  const files = [];
  const add = (path) => files.push({ name: path, bytes: new Uint8Array(readFileSync(path)) });
  if (existsSync(CONFORMANCE)) {
    for (const d of readdirSync(CONFORMANCE, { withFileTypes: true })) {
      if (!d.isDirectory()) continue;
      for (const f of readdirSync(join(CONFORMANCE, d.name))) if (/\.(pte|ptd)$/.test(f)) add(join(CONFORMANCE, d.name, f));
    }
  }
  if (existsSync(ARTIFACTS)) for (const f of readdirSync(ARTIFACTS)) if (f.endsWith('.pte')) add(join(ARTIFACTS, f));
  // The native fuzz's crafted hostile files (DAG, many keys, many segments, special doubles).
  for (const f of readdirSync(REGRESSIONS)) if (/\.(pte|ptd)$/.test(f)) add(join(REGRESSIONS, f));
  // Our own files with the unusual values and keys in them.
  const store = new et.NamedDataStore();
  try {
    for (const k of ['__proto__', 'constructor', '\u0000', 'w']) store.addNamedData(k, patternBytes(24, k.length + 1), { alignment: 16, externalTag: k === 'w' ? 'model' : null });
    const program = syntheticProgram({ constants: [patternBytes(64, 1)], ints: 4, intLists: 2, tensors: 2, kernelCalls: 3 });
    for (const d of [NaN, -0, Infinity]) program.execution_plan[0].values.push({ val: { double_val: d }, val_type: 'Double' });
    const { pte, ptd } = et.serializeForExecutorch({ program }, {}, undefined, store);
    files.push({ name: 'generated.pte', bytes: pte }, { name: 'generated.ptd', bytes: ptd.model });
  } finally {
    store.delete();
  }
  return files;
}

const BOUNDARY = [0, 1, 2, 3, 4, 7, 8, 16, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff];

function mutateBytes(r, source) {
  let b = source.slice();
  const steps = 1 + r.below(4);
  for (let s = 0; s < steps && b.length; ++s) {
    const at = r.below(b.length);
    switch (r.below(7)) {
      case 0: b[at] ^= 1 << r.below(8); break;
      case 1: if (at + 4 <= b.length) new DataView(b.buffer).setUint32(at & ~3, r.pick(BOUNDARY) >>> 0, true); break;
      case 2: b = b.subarray(0, at).slice(); break;  // truncate
      case 3: { // duplicate a range somewhere else
        const len = Math.min(b.length - at, 1 + r.below(64));
        const dst = r.below(b.length);
        const copy = b.slice(at, at + len);
        b.set(copy.subarray(0, Math.min(len, b.length - dst)), dst);
        break;
      }
      case 4: b.fill(r.chance(0.5) ? 0 : 0xff, at, Math.min(b.length, at + 1 + r.below(32))); break;
      case 5: { // grow: append junk
        const grown = new Uint8Array(b.length + 1 + r.below(256));
        grown.set(b);
        for (let i = b.length; i < grown.length; ++i) grown[i] = r.next() & 0xff;
        b = grown;
        break;
      }
      default: if (at + 8 <= b.length) new DataView(b.buffer).setBigUint64(at & ~7, BigInt(r.pick(BOUNDARY)) << BigInt(r.below(33)), true);
    }
  }
  return b;
}

const HOSTILE_VALUES = () => [NaN, -0, Infinity, -Infinity, 2 ** 53, -(2 ** 63), 1.5, -1, 2n ** 64n, -1n, '', '\u0000', '__proto__', 'nan',
  {}, [], null, true, new Uint8Array(3), { __proto__: null, x: 1 }, JSON.parse('{"__proto__": 1}'), [[[[[]]]]], 'x'.repeat(1000)];

// A random place in a program object (copied first) gets a hostile value.
function mutateProgram(r, program) {
  const copy = structuredClone(program);
  for (let s = 1 + r.below(3); s > 0; --s) {
    let parent = null;  // the object holding `key`
    let key = null;
    for (let node = copy, depth = 0; depth < 8; ++depth) {
      const keys = node && typeof node === 'object' && !ArrayBuffer.isView(node) ? Object.keys(node) : [];
      if (!keys.length || (depth > 1 && r.chance(0.3))) break;
      parent = node;
      key = r.pick(keys);
      node = node[key];
    }
    if (key === null) continue;
    const value = r.pick(HOSTILE_VALUES());
    if (r.chance(0.1)) Object.defineProperty(parent, key, { value, enumerable: true, configurable: true, writable: true });
    else parent[key] = value;
  }
  const plan = copy.execution_plan?.[0];
  if (r.chance(0.05) && plan && typeof plan === 'object') plan.cycle = copy;
  return copy;
}

const KEYS = ['__proto__', 'constructor', 'hasOwnProperty', '\u0000', 'a\u0000b', '', 'w', '\u{1F600}', 'x'.repeat(300)];
const OPTION_KEYS = ['segmentAlignment', 'constantTensorAlignment', 'delegateAlignment', 'extractDelegateSegments', 'output', 'externalize',
  'externalise', 'merge', 'mergeTag', 'dataSegmentAlignment', 'segment_alignment', '__proto__', 'kind', 'onProgress'];
const OPTION_VALUES = [undefined, null, 0, 1, 3, 16, 96, 1.5, -8, 2 ** 31, 2 ** 52, 64n, '16', true, false, {}, [], 'bytes', 'artifact', 'pte', 'ptd', '',
  { tag: 'model', minBytes: 1 }, { minBytes: 1n, alignment: 3 }];

function randomOptions(r) {
  const o = {};
  for (let n = r.below(3); n > 0; --n) {
    const key = r.pick(OPTION_KEYS);
    const value = r.pick(OPTION_VALUES);
    Object.defineProperty(o, key, { value, enumerable: true, configurable: true, writable: true });
  }
  return r.chance(0.1) ? r.pick([null, 5, 'x', []]) : o;
}

const tally = { ok: 0 };

// One call under the fuzz's rules; returns its result or undefined.
function attempt(label, fn, failures) {
  const cpu = process.cpuUsage();
  let result;
  try {
    result = fn();
    tally.ok++;
  } catch (e) {
    tally[e?.code ?? 'uncoded'] = (tally[e?.code ?? 'uncoded'] ?? 0) + 1;
    if (!(e instanceof et.EtpackError) || !CODES.has(e.code) || typeof e.message !== 'string' || !e.message) {
      failures.push(`${label}: uncoded ${e?.constructor?.name} ${e?.code ?? ''}: ${String(e?.message ?? e).slice(0, 200)}`);
    }
  }
  const used = process.cpuUsage(cpu);
  const ms = (used.user + used.system) / 1000;
  if (ms > CALL_CPU_LIMIT_MS) failures.push(`${label}: ${ms.toFixed(0)} ms of CPU`);
  const heap = et._internal.module.HEAPU8.byteLength;
  if (heap > HEAP_LIMIT) failures.push(`${label}: wasm heap left at ${heap} bytes`);
  return result;
}

test(`JS fuzz: seed ${SEED}, up to ${ITERATIONS} iterations or ${SECONDS} s`, (t) => {
  const r = rng(SEED);
  const files = corpus();
  const ptes = files.filter((f) => !f.name.endsWith('.ptd'));
  const ptds = files.filter((f) => f.name.endsWith('.ptd'));
  const programs = [syntheticProgram({ constants: [patternBytes(32, 2)], ints: 3, intLists: 1, tensors: 1, kernelCalls: 2 })];
  for (const f of ptes.slice(0, 8)) {
    try { programs.push(et.deserializePteBinary(f.bytes).program); } catch { /* not every corpus file deserializes */ }
  }
  const failures = [];
  const deadline = Date.now() + SECONDS * 1000;
  let done = 0;
  for (; done < ITERATIONS && Date.now() < deadline && failures.length < 20; ++done) {
    const label = `#${done}`;
    const kind = r.below(10);
    if (kind < 6) {
      const source = r.pick(r.chance(0.7) ? ptes : ptds.length ? ptds : ptes);
      const bytes = mutateBytes(r, source.bytes);
      const name = `${label} ${source.name.split('/').slice(-2).join('/')}`;
      switch (r.below(6)) {
        case 0: attempt(`${name} validate`, () => et.validate(bytes), failures); break;
        case 1: attempt(`${name} validate+ptd`, () => et.validate(r.pick(ptes).bytes, { m: bytes }), failures); break;
        case 2: attempt(`${name} inspect`, () => et.inspect(bytes, r.chance(0.2) ? { kind: r.pick(['pte', 'ptd']) } : {}), failures); break;
        case 3: attempt(`${name} deserialize`, () => (r.chance(0.5) ? et.deserializePteBinary(bytes) : new et.FlatTensorSerializer().deserialize(bytes)), failures); break;
        default: {
          const out = attempt(`${name} repack`, () => et.repack(bytes, r.chance(0.5) ? randomOptions(r) : { externalize: true }), failures);
          if (out?.pte) attempt(`${name} validate(repacked)`, () => et.validate(out.pte, out.ptd), failures);
        }
      }
    } else if (kind < 9) {
      const program = mutateProgram(r, r.pick(programs));
      const name = `${label} program`;
      switch (r.below(3)) {
        case 0: attempt(`${name} programToJson`, () => et.programToJson(program), failures); break;
        case 1: {
          const pte = attempt(`${name} serializePteBinary`, () => et.serializePteBinary({ program }, randomOptions(r)), failures);
          if (pte) attempt(`${name} deserialize(serialized)`, () => et.deserializePteBinary(pte), failures);
          break;
        }
        default: attempt(`${name} serializeForExecutorch`, () => et.serializeForExecutorch({ program, externalConstantMap: r.chance(0.3) ? { __proto__: null, m: { x: 0 } } : {} },
          randomOptions(r), undefined, null, randomOptions(r)), failures);
      }
    } else {
      const store = new et.NamedDataStore();
      try {
        attempt(`${label} store`, () => {
          for (let n = r.below(4); n > 0; --n) store.addNamedData(r.pick(KEYS), patternBytes(1 + r.below(40), n), randomOptions(r));
          return et.serializeForExecutorch({ program: r.pick(programs) }, {}, new et.FlatTensorSerializer(), store);
        }, failures);
      } finally {
        store.delete();
      }
    }
  }
  t.diagnostic(`${done} iterations; outcomes ${JSON.stringify(tally)}`);
  assert.deepEqual(failures, [], `after ${done} iterations`);
  assert.ok(done >= Math.min(ITERATIONS, 200), `only ${done} iterations ran`);
});
