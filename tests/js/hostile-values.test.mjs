// Exact values through every path: doubles (NaN, ±Infinity, -0, extremes)
// bit for bit, int64 exact (BigInt beyond the safe range).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadApi } from './helpers/common.mjs';
import { syntheticProgram } from './helpers/programs.mjs';
import { parseLossless, parseReply, programText } from '../../npm/src/marshal.mjs';

const et = await loadApi();
const DOUBLES = [NaN, Infinity, -Infinity, -0, 0, 1.5, -2.25, 5e-324, Number.MAX_VALUE, 2 ** 53, 2 ** 60, -(2 ** 70), 0.1];

function withDoubles(doubles = DOUBLES) {
  const program = syntheticProgram({});
  const values = program.execution_plan[0].values;
  const first = values.length;
  for (const d of doubles) values.push({ val: { double_val: d }, val_type: 'Double' });
  values.push({ val: { items: doubles }, val_type: 'DoubleList' });
  return { program, first };
}

function doublesOf(program, first, n = DOUBLES.length) {
  const values = program.execution_plan[0].values;
  return { scalars: values.slice(first, first + n).map((v) => v.val.double_val), list: values[first + n].val.items };
}

function assertSame(actual, expected, what) {
  assert.equal(actual.length, expected.length, what);
  actual.forEach((a, i) => assert.ok(Object.is(a, expected[i]), `${what}[${i}]: ${String(a)} is not ${String(expected[i])}`));
}

// Upstream's Double (exir/schema.py) holds ±infinity as the strings "inf" and
// "-inf"; programs read back keep upstream's shape, and both forms are
// accepted as input.
// A Double of -0.0 equals the default 0.0, so upstream's Python builder omits
// the field and it reads back as +0.0 (list items keep their sign).
const UPSTREAM_DOUBLE = (d) => (d === Infinity ? 'inf' : d === -Infinity ? '-inf' : Object.is(d, -0) ? 0 : d);

test('doubles from JS objects survive serialize -> deserialize bit for bit', () => {
  const { program, first } = withDoubles();
  const pte = et.serializePteBinary({ program });
  const back = et.deserializePteBinary(pte).program;
  const { scalars, list } = doublesOf(back, first);
  assertSame(scalars, DOUBLES.map(UPSTREAM_DOUBLE), 'double_val');
  assertSame(list, DOUBLES, 'DoubleList');
  assert.deepEqual(et.serializePteBinary({ program: back }), pte, 'the read-back program writes the same bytes');
});

test('the written bytes hold the IEEE-754 patterns (NaN, ±Infinity, -0 are not 0.0)', () => {
  const pte = et.serializePteBinary({ program: withDoubles([NaN, Infinity, -Infinity, -0]).program });
  const find = (d) => {
    const pattern = new Uint8Array(new Float64Array([d]).buffer);
    for (let i = 0; i + 8 <= pte.length; ++i) if (pattern.every((b, k) => pte[i + k] === b)) return i;
    return -1;
  };
  for (const d of [Infinity, -Infinity, -0]) assert.ok(find(d) >= 0, `${d} is in the file`);
  // A NaN: any NaN pattern (exponent all ones, mantissa non-zero).
  const view = new DataView(pte.buffer, pte.byteOffset, pte.byteLength);
  let nan = false;
  for (let i = 0; i + 8 <= pte.length; i += 1) if (Number.isNaN(view.getFloat64(i, true)) && view.getUint32(i + 4, true) >>> 20 === 0x7ff) nan = true;
  assert.ok(nan, 'a NaN is in the file');
});

test('programToJson writes NaN, Infinity, -Infinity and -0.0 as upstream does, and reads them back', () => {
  const { program, first } = withDoubles([NaN, Infinity, -Infinity, -0, 1.5]);
  const text = et.programToJson(program);
  const scalars = text.match(/"double_val": [^}]*/g).map((s) => s.slice('"double_val": '.length));
  assert.deepEqual(scalars, ['NaN', '"inf"', '"-inf"', '-0.0', '1.5']);
  const list = text.match(/"items": \[[^\]]*\]/)[0];
  assert.equal(list, '"items": [NaN, Infinity, -Infinity, -0.0, 1.5]');
  assert.equal(et.programToJson(text), text, 'JSON text input round-trips as text');
  const back = et.deserializePteBinary(et.serializePteBinary({ program: text })).program;
  assertSame(doublesOf(back, first, 5).scalars, [NaN, 'inf', '-inf', 0, 1.5], 'from JSON text (a Double of -0.0 is omitted as upstream omits it)');
  assertSame(doublesOf(back, first, 5).list, [NaN, Infinity, -Infinity, -0, 1.5], 'list from JSON text');
});

test('-0 in an integer field is 0; NaN or Infinity in an integer field is refused with a code', () => {
  const program = syntheticProgram({});
  program.execution_plan[0].values[0].val.storage_offset = -0;
  et.serializePteBinary({ program });
  for (const bad of [NaN, Infinity, 1.5]) {
    program.execution_plan[0].values[0].val.storage_offset = bad;
    assert.throws(() => et.serializePteBinary({ program }), (e) => e instanceof et.EtpackError && typeof e.code === 'string', String(bad));
  }
});

test('int64 stays exact: BigInt beyond 2^53 round-trips, unsafe Numbers are refused', () => {
  const program = syntheticProgram({});
  const values = program.execution_plan[0].values;
  const big = [2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n + 1n];
  const first = values.length;
  for (const b of big) values.push({ val: { int_val: b }, val_type: 'Int' });
  values.push({ val: { int_val: 2 ** 53 - 1 }, val_type: 'Int' });
  const back = et.deserializePteBinary(et.serializePteBinary({ program })).program.execution_plan[0].values;
  assert.deepEqual(back.slice(first).map((v) => v.val.int_val), [...big, 2 ** 53 - 1]);
  values.push({ val: { int_val: 2 ** 60 }, val_type: 'Int' });
  assert.throws(() => et.serializePteBinary({ program }), { code: 'INVALID_ARGUMENT' });
});

test('the caller\'s program object is not modified', () => {
  const { program } = withDoubles([NaN, -0]);
  const before = JSON.stringify(program);
  et.programToJson(program);
  assert.equal(JSON.stringify(program), before);
});

test('a string that looks like a placeholder stays a string', () => {
  const program = syntheticProgram({});
  program.execution_plan[0].name = '\u0000FNaN';
  const text = programText(program, null);
  assert.equal(JSON.parse(text).execution_plan[0].name, '\u0000FNaN');
});

test('reply parsers read bare NaN/Infinity tokens and leave strings alone', () => {
  const text = '{"a": NaN, "b": [Infinity, -Infinity, -0.0, 1e308], "s": "NaN, Infinity", "big": "\\u000012345678901234567890"}';
  const r = parseReply(text, []);
  assert.ok(Number.isNaN(r.a));
  assertSame(r.b, [Infinity, -Infinity, -0, 1e308], 'b');
  assert.equal(r.s, 'NaN, Infinity');
  assert.equal(r.big, 12345678901234567890n);
  const l = parseLossless('{"n": 9007199254740993, "x": [NaN, -Infinity], "k": "\\u0000key", "f": -0.0}');
  assert.equal(l.n, 9007199254740993n);
  assertSame(l.x, [NaN, -Infinity], 'x');
  assert.equal(l.k, '\u0000key');
  assert.ok(Object.is(l.f, -0));
});

test('reply parsers are linear: a 40 MB string or 5M escapes next to a NaN do not overflow the stack', () => {
  const long = `{"a": "${'x'.repeat(40e6)}", "b": NaN, "c": 12345678901234567890}`;
  const r = parseLossless(long);
  assert.equal(r.a.length, 40e6);
  assert.ok(Number.isNaN(r.b));
  assert.equal(r.c, 12345678901234567890n);
  const escapes = `{"a": "${'\\"\\\\'.repeat(2.5e6)}", "b": [Infinity, "NaN\\"", -Infinity]}`;
  const e = parseReply(escapes, []);
  assert.equal(e.a.length, 5e6);
  assert.deepEqual(e.b, [Infinity, 'NaN"', -Infinity]);
});
