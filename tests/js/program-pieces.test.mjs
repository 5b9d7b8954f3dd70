// A program object is written to the heap as pieces (programPieces), not one
// long JSON text: the pieces join to what JSON.stringify writes, and a
// program survives the trip through them, non-ASCII text included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadApi } from './helpers/common.mjs';
import { syntheticProgram } from './helpers/programs.mjs';
import { programPieces } from '../../npm/src/marshal.mjs';

const et = await loadApi();
const scope = { data: (v) => v };

test('pieces join to JSON.stringify, for long lists, omitted members and toJSON', () => {
  const program = syntheticProgram({ ints: 700, intLists: 300, tensors: 300, kernelCalls: 600 });
  const pieces = programPieces(program, scope);
  assert.ok(pieces.length > 10, `a long program is written in pieces (${pieces.length})`);
  assert.equal(pieces.join(''), JSON.stringify(program));

  const tricky = {
    list: [1, undefined, () => 1, Symbol('s'), , 3],
    gone: undefined,
    named: { toJSON: (key) => `key ${key}` },
    dropped: { toJSON: () => undefined },
    long: Array.from({ length: 600 }, (_, i) => (i % 7 ? i : undefined)),
    indexed: Array.from({ length: 600 }, (_, i) => (i === 599 ? { toJSON: (key) => `index ${key}` } : i)),
    short: [1, { toJSON: (key) => `index ${key}` }],
    deep: { a: { b: { c: { d: { e: { f: { g: [1, 2, 3] } } } } } } },
  };
  Object.defineProperty(tricky, '__proto__', { value: { own: { toJSON: (key) => key } }, enumerable: true });
  assert.equal(programPieces(tricky, scope).join(''), JSON.stringify(tricky));
  assert.deepEqual(programPieces('{"version": 0}', scope), ['{"version": 0}']);
});

test('a long program with non-ASCII names round-trips through the pieces', () => {
  const program = syntheticProgram({ ints: 600, intLists: 10, tensors: 10, kernelCalls: 600 });
  program.execution_plan[0].operators = [{ name: 'aten::añadir_∑_😀', overload: 'out' }, ...program.execution_plan[0].operators.slice(1)];
  const pte = et.serializePteBinary({ program });
  assert.deepEqual(pte, et.serializePteBinary({ program: JSON.stringify(program) }));
  const back = et.deserializePteBinary(pte).program;
  assert.equal(back.execution_plan[0].operators[0].name, 'aten::añadir_∑_😀');
  assert.equal(back.execution_plan[0].values.length, program.execution_plan[0].values.length);
  assert.deepEqual(back.execution_plan[0].values[700], program.execution_plan[0].values[700]);
});
