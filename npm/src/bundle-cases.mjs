// The safetensors naming of BundledProgram test cases, read side: shared by
// et.testCasesFromSafetensors (ops/bundled.mjs) and the CLI (cli/bundled.mjs
// documents the naming and writes it back in unbundle).
//
// Names are parsed strictly: CASE and I are canonical decimals (0, or digits
// without a leading zero) below 2^32 - 1 (a flatbuffer vector's length is a
// uint32), so "f.0.input.0" and "f.00.input.0" can never both stand for one
// value. METHOD is everything before them (it may hold dots, or be empty).
// Cases and values are kept in Maps keyed by number, never in arrays indexed
// by a claimed number, and every count a name or the metadata claims is
// checked against the values that back it before anything is made for it.
import { isNanBits, nanBitsValue } from './marshal/nan-bits.mjs';

const QUIET_NAN_HEX = '7ff8000000000000';
const INDEX = '(0|[1-9][0-9]{0,9})';
export const VALUE_NAME = new RegExp(`^(.*)\\.${INDEX}\\.(input|output)\\.${INDEX}$`, 's');
// What looks like a value name, canonical or not (refused when not).
const LOOSE_NAME = /^(.*)\.([^.]*)\.(input|output)\.([^.]*)$/s;
const MAX_INDEX = 0xFFFFFFFE;  // a vector of 2^32 - 1 elements is the most a flatbuffer holds

const contiguous = (rank) => Array.from({ length: rank }, (_, i) => i);
const quoted = (text) => JSON.stringify(String(text));

// A value name as { method, testCase, kind, index }, null for a name that is
// no value name at all; throws (Error, a message) for one that looks like a
// value name but is not canonical.
export function parseValueName(name) {
  const m = VALUE_NAME.exec(name);
  if (m && Number(m[2]) <= MAX_INDEX && Number(m[4]) <= MAX_INDEX) {
    return { method: m[1], testCase: Number(m[2]), kind: m[3], index: Number(m[4]) };
  }
  const loose = LOOSE_NAME.exec(name);
  if (!loose) return null;
  const bad = [loose[2], loose[4]].find((s) => !/^(0|[1-9][0-9]*)$/.test(s) || Number(s) > MAX_INDEX);
  throw new Error(`${quoted(name)} is no value name: ${quoted(bad)} is not a canonical decimal index ` +
    `(0, or digits without a leading zero, at most ${MAX_INDEX})`);
}

const DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

// A metadata value ("Int 5", ...) as a bundle value, or an Error message.
// Exactly the spellings unbundle writes: "None"; "Int N" (a canonical
// decimal in int64); "Bool true|false"; "Double X" with X a decimal number,
// NaN (the quiet NaN), "NaN 0x" + 16 lowercase hex digits (any other NaN,
// its bits), Infinity, -Infinity or -0 (no other hex, spaces or words).
export function scalarValue(text, name) {
  const m = /^(Int|Double|Bool|None)(?: (.*))?$/s.exec(text);
  if (!m) throw new Error(`metadata ${name}: "${text}" is none of "Int N", "Double X", "Bool true|false", "None"`);
  const [, type, arg] = m;
  if (type === 'None') {
    if (arg !== undefined) throw new Error(`metadata ${name}: "${text}" is not "None" (None takes no value)`);
    return { val_type: null, val: null };
  }
  if (type === 'Int') {
    if (!/^-?(0|[1-9][0-9]*)$/.test(arg ?? '') || arg === '-0') throw new Error(`metadata ${name}: "${arg}" is not an integer (canonical decimal)`);
    if (arg.length > 20) throw new Error(`metadata ${name}: ${arg} does not fit int64`);
    const v = BigInt(arg);
    if (v < -(2n ** 63n) || v >= 2n ** 63n) throw new Error(`metadata ${name}: ${arg} does not fit int64`);
    return { val_type: 'Int', val: { int_val: Number.isSafeInteger(Number(v)) ? Number(v) : v } };
  }
  if (type === 'Bool') {
    if (arg !== 'true' && arg !== 'false') throw new Error(`metadata ${name}: "${arg}" is not true or false`);
    return { val_type: 'Bool', val: { bool_val: arg === 'true' } };
  }
  const special = { NaN, Infinity, '-Infinity': -Infinity, '-0': -0 };
  if (arg !== undefined && Object.hasOwn(special, arg)) return { val_type: 'Double', val: { double_val: special[arg] } };
  const nan = /^NaN 0x([0-9a-f]{16})$/.exec(arg ?? '');
  if (nan) {
    // Another NaN than the quiet one (written "NaN"), its bits kept.
    const bits = nanBitsValue(nan[1]);
    if (!isNanBits(bits) || nan[1] === QUIET_NAN_HEX) {
      throw new Error(`metadata ${name}: "${arg}" is not a NaN other than the quiet NaN (write the quiet NaN as "NaN")`);
    }
    return { val_type: 'Double', val: { double_val: bits } };
  }
  if (arg === undefined || !DECIMAL.test(arg) || !Number.isFinite(Number(arg))) {
    throw new Error(`metadata ${name}: "${arg}" is not a number (a decimal, NaN, NaN 0x<16 hex digits>, Infinity, -Infinity or -0)`);
  }
  return { val_type: 'Double', val: { double_val: Number(arg) } };
}

// A tensor of a safetensors file (as the core's header reader gives it,
// with its ExecuTorch scalar type or null) as a bundle value.
export function tensorValue(tensor, bytes, dimOrderText, name) {
  const scalarType = tensor.scalarType;
  if (!Number.isInteger(scalarType)) throw new Error(`tensor ${name}: dtype ${tensor.dtype} has no ExecuTorch scalar type`);
  const sizes = tensor.shape.map(Number);
  let dimOrder = contiguous(sizes.length);
  if (dimOrderText !== undefined) {
    try {
      dimOrder = JSON.parse(dimOrderText);
    } catch {
      dimOrder = null;
    }
    if (!Array.isArray(dimOrder) || !dimOrder.every((d) => Number.isSafeInteger(d))) {
      throw new Error(`metadata ${name}.dim_order: "${dimOrderText}" is not a JSON list of integers`);
    }
  }
  return { val_type: 'Tensor', val: { scalar_type: scalarType, sizes, dim_order: dimOrder, data: bytes } };
}

// bundle.suites as [[method, count], ...]: each method once.
function listedSuites(text) {
  let listed;
  try {
    listed = JSON.parse(text);
  } catch {
    listed = null;
  }
  if (!Array.isArray(listed) || !listed.every((s) => Array.isArray(s) && s.length === 2 && typeof s[0] === 'string' &&
    Number.isSafeInteger(s[1]) && s[1] >= 0 && s[1] <= MAX_INDEX + 1)) {
    throw new Error(`metadata bundle.suites must be [[method, case count], ...], got ${quoted(text)}`);
  }
  const seen = new Set();
  for (const [method] of listed) {
    if (seen.has(method)) throw new Error(`metadata bundle.suites names method ${quoted(method)} twice`);
    seen.add(method);
  }
  return listed;
}

// The suites the parsed values make: `values` is a Map name -> { parsed,
// value } (each name once), `suitesText` bundle.suites (or undefined) and
// `headerBytes` the headers' total size. Cases with no value at all exist
// only through bundle.suites or a higher CASE; each is charged one byte of
// the headers that claim it, so what is made is at most values + header
// bytes (one case object each), however large the claimed numbers.
export function assembleSuites(values, suitesText, headerBytes) {
  const suites = new Map();  // method -> Map(case -> { input: Map, output: Map })
  for (const [name, { parsed, value }] of values) {
    if (!suites.has(parsed.method)) suites.set(parsed.method, new Map());
    const cases = suites.get(parsed.method);
    if (!cases.has(parsed.testCase)) cases.set(parsed.testCase, { input: new Map(), output: new Map() });
    cases.get(parsed.testCase)[parsed.kind].set(parsed.index, { name, value });
  }
  const listed = suitesText === undefined ? [] : listedSuites(suitesText);
  const claimed = new Map(listed);
  const order = [...listed.map((s) => s[0]), ...[...suites.keys()].filter((m) => !claimed.has(m)).sort()];
  let empty = 0;
  const counts = new Map();
  for (const method of order) {
    const cases = suites.get(method) ?? new Map();
    let highest = -1;
    for (const c of cases.keys()) highest = Math.max(highest, c);
    let count = highest + 1;
    if (claimed.has(method)) {
      if (claimed.get(method) < count) {
        const beyond = cases.get(highest);
        const name = [...beyond.input.values(), ...beyond.output.values()][0].name;
        throw new Error(`${quoted(name)} is beyond the ${claimed.get(method)} case(s) metadata bundle.suites gives ${quoted(method)}`);
      }
      count = claimed.get(method);
    }
    empty += count - cases.size;
    if (empty > headerBytes) {
      throw new Error(`the cases of ${quoted(method)} number ${count} (${count - cases.size} of them with no value), more than ` +
        `the files can hold: a case with no value is backed only by the header that claims it (${headerBytes} bytes in all)`);
    }
    counts.set(method, count);
  }
  return order.map((method) => {
    const cases = suites.get(method) ?? new Map();
    const testCases = [];
    for (let i = 0; i < counts.get(method); ++i) {
      const c = cases.get(i);
      testCases.push({ inputs: c ? valueList(c.input, method, i, 'input') : [], expected_outputs: c ? valueList(c.output, method, i, 'output') : [] });
    }
    return { method_name: method, test_cases: testCases };
  });
}

// The values of one case and kind, numbered from 0 without gaps.
function valueList(byIndex, method, testCase, kind) {
  const list = [];
  for (let k = 0; k < byIndex.size; ++k) {
    if (!byIndex.has(k)) throw new Error(`${quoted(`${method}.${testCase}.${kind}.${k}`)} is missing (values are numbered from 0 without gaps)`);
    list.push(byIndex.get(k).value);
  }
  return list;
}
