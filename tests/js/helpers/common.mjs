// Shared helpers for the JS tests: where things are, lossless JSON, byte
// comparison, and the conformance case model.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const NPM = join(ROOT, 'npm');
export const SHARED = join(ROOT, '..', 'shared');
export const CONFORMANCE = process.env.ETPACK_CONFORMANCE_DIR ?? join(SHARED, 'conformance');
export const ARTIFACTS = process.env.ETPACK_ARTIFACTS_DIR ?? join(SHARED, 'artifacts');
export const CLI = join(NPM, 'bin', 'executorch-pack.mjs');

export async function loadApi() {
  const { default: init } = await import(join(NPM, 'index.node.mjs'));
  return init();
}

export function caseNames() {
  return readdirSync(CONFORMANCE, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(CONFORMANCE, d.name, 'case.json')))
    .map((d) => d.name)
    .sort();
}

export function loadCase(name) {
  const dir = join(CONFORMANCE, name);
  const spec = JSON.parse(readFileSync(join(dir, 'case.json'), 'utf8'));
  return { name, dir, spec, file: (f) => readFileSync(join(dir, f)), text: (f) => readFileSync(join(dir, f), 'utf8') };
}

export function kindOf(spec) {
  if (spec.deserialize_pte) return 'deser_pte';
  if (spec.deserialize_ptd) return 'deser_ptd';
  if (spec.store_ops) return 'store';
  return 'serialize';
}

// README's table: expected error code by case id (the part before the first '_').
const ERROR_CODES = {
  '16a': 'INVALID_ALIGNMENT', '16a2': 'INVALID_ALIGNMENT', '16h': 'INVALID_ALIGNMENT',
  '16b': 'DELEGATE_NOT_INLINE', '16c': 'DELEGATE_INDEX_OUT_OF_RANGE', '16d': 'PROGRAM_HAS_NAMED_DATA',
  '16e': 'DUPLICATE_KEY', '16g': 'DUPLICATE_KEY', '16g2': 'DUPLICATE_KEY', '16j': 'DUPLICATE_KEY',
  '16f': 'EXTERNAL_TENSOR_NOT_FOUND', '16i': 'SHARD_CAP_EXCEEDED',
  '16i2': 'INVALID_ARGUMENT', '16i3': 'INVALID_ARGUMENT',
};
export function expectedErrorCode(name) {
  return ERROR_CODES[name.split('_')[0]];
}

// JSON.parse that keeps integers outside the safe range exact (as BigInt).
export function parseLossless(text) {
  let i = 0;
  const ws = () => { while (i < text.length && ' \t\n\r'.includes(text[i])) ++i; };
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{') {
      ++i; const obj = {}; ws();
      if (text[i] === '}') { ++i; return obj; }
      for (;;) {
        ws(); const key = string(); ws(); expect(':');
        obj[key] = value(); ws();
        if (text[i] === ',') { ++i; continue; }
        expect('}'); return obj;
      }
    }
    if (c === '[') {
      ++i; const arr = []; ws();
      if (text[i] === ']') { ++i; return arr; }
      for (;;) {
        arr.push(value()); ws();
        if (text[i] === ',') { ++i; continue; }
        expect(']'); return arr;
      }
    }
    if (c === '"') return string();
    const m = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 64));
    if (m) {
      i += m[0].length;
      if (m[1] === undefined && m[2] === undefined) {
        const n = Number(m[0]);
        return Number.isSafeInteger(n) ? n : BigInt(m[0]);
      }
      return Number(m[0]);
    }
    for (const [word, v] of [['true', true], ['false', false], ['null', null]]) {
      if (text.startsWith(word, i)) { i += word.length; return v; }
    }
    throw new SyntaxError(`bad JSON at ${i}`);
  };
  const expect = (ch) => { if (text[i] !== ch) throw new SyntaxError(`expected ${ch} at ${i}`); ++i; };
  const string = () => {
    const start = i; expect('"');
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    ++i;
    return JSON.parse(text.slice(start, i));
  };
  const v = value(); ws();
  if (i !== text.length) throw new SyntaxError('trailing characters');
  return v;
}

// A comparable form of a program: byte arrays as plain lists, safe BigInts as
// Numbers, unsafe ones as tagged strings.
export function normalize(value) {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) && BigInt(Number(value)) === value ? Number(value) : `${value}n`;
  if (ArrayBuffer.isView(value)) return Array.from(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
  if (Array.isArray(value)) return value.map(normalize);
  if (value !== null && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = normalize(v);
    return out;
  }
  return value;
}

export function assertBytes(actual, expected, what) {
  assert.ok(actual instanceof Uint8Array, `${what}: expected a Uint8Array`);
  const a = Buffer.from(actual.buffer, actual.byteOffset, actual.byteLength);
  if (Buffer.compare(a, expected) !== 0) {
    let at = 0;
    while (at < a.length && at < expected.length && a[at] === expected[at]) ++at;
    assert.fail(`${what}: bytes differ (ours ${a.length} bytes, expected ${expected.length}, first difference at ${at})`);
  }
}

// camelCase entries for the JS API from the case files' snake_case.
export function entriesToJs(entries) {
  const out = {};
  for (const [k, e] of Object.entries(entries)) {
    const l = e.tensor_layout;
    out[k] = { bufferIndex: e.buffer_index, alignment: e.alignment,
      tensorLayout: l ? { scalarType: l.scalar_type, sizes: l.sizes, dimOrder: l.dim_order } : null };
  }
  return out;
}

export function storeToJs(store, file) {
  const external = {};
  for (const [tag, entries] of Object.entries(store.external_data)) external[tag] = entriesToJs(entries);
  return { buffers: store.buffers.map(file), pteData: entriesToJs(store.pte_data), externalData: external };
}

export function configToJs(config) {
  const out = {};
  if (config.extract_delegate_segments !== null) out.extractDelegateSegments = config.extract_delegate_segments;
  if (config.segment_alignment !== null) out.segmentAlignment = config.segment_alignment;
  if (config.constant_tensor_alignment !== null) out.constantTensorAlignment = config.constant_tensor_alignment;
  if (config.delegate_alignment !== null) out.delegateAlignment = config.delegate_alignment;
  return out;
}
