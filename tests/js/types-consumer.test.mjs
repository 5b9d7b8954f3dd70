// The .d.ts files tell the truth to a strict TypeScript consumer: the whole
// documented API compiles (Node entry with `nodenext` resolution, browser and
// inline entries with `bundler` resolution), and mistakes the types exist to
// catch (a misspelt Program field, a store imported as a value, an unknown
// finding code, a .ptd tag used without a check, an unopened Blob given to a
// synchronous call, FileSource as a value in
// browsers) are compile errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helpers/common.mjs';
import { BROWSER, NODE, tsProject, tsc as compile } from './helpers/typescript.mjs';

const FIXTURES = join(ROOT, 'tests/js/fixtures/types');
const project = tsProject;
const tsc = (dir, name, options, files) => compile(dir, name, options,
  Object.fromEntries(files.map((f) => [f.split('/').pop(), readFileSync(join(FIXTURES, f), 'utf8')])));

test('a strict consumer of the whole API compiles against the Node and browser types', { timeout: 180_000 }, (t) => {
  const dir = project(t);
  const node = tsc(dir, 'node', NODE, ['node-consumer.ts']);
  assert.equal(node.status, 0, node.output);
  const browser = tsc(dir, 'browser', BROWSER, ['browser-consumer.ts']);
  assert.equal(browser.status, 0, browser.output);
});

test('a browser project without @types/node and with lib es2022 + dom compiles (Symbol.dispose declared by our types)', { timeout: 180_000 }, (t) => {
  // tsc --strict --module esnext --moduleResolution bundler --lib es2022,dom --types ''
  const dir = project(t);
  const plain = { strict: true, noEmit: true, skipLibCheck: false, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', lib: ['es2022', 'dom'], types: [] };
  const r = tsc(dir, 'browser-plain', plain, ['browser-consumer.ts']);
  assert.equal(r.status, 0, r.output);
  // The members that need it are there and callable: a store disposed by hand.
  const disposing = compile(dir, 'dispose', plain, { 'dispose.ts': `import init from 'executorch-pack';
const et = await init();
const store = new et.NamedDataStore();
store[Symbol.dispose]();
export {};
` });
  assert.equal(disposing.status, 0, disposing.output);
});

test('the types catch misspelt fields, unknown codes, unchecked .ptd tags and values that do not exist', { timeout: 180_000 }, (t) => {
  const dir = project(t);
  const nodeCases = {
    'field-typo.ts': /nmae/,
    'store-import.ts': /NamedDataStore.*(cannot be used as a value|only refers to a type)/,
    'finding-code.ts': /SEGMENT_OUT_OF_BOUND.*not assignable/,
    'ptd-optional.ts': /possibly 'undefined'/,
    'blob-sync.ts': /Blob.*not assignable to parameter of type/,
  };
  const browserCases = { 'browser-filesource.ts': /FileSource.*(cannot be used as a value|only refers to a type)/ };
  for (const [name, options, cases] of [['neg-node', NODE, nodeCases], ['neg-browser', BROWSER, browserCases]]) {
    const r = tsc(dir, name, options, Object.keys(cases).map((f) => `negative/${f}`));
    assert.notEqual(r.status, 0, r.output);
    // One error per file, the expected one (tsc prints `file(line,col): error TS...`).
    const errors = r.output.split('\n').filter((l) => /error TS\d+/.test(l));
    for (const [file, expected] of Object.entries(cases)) {
      const mine = errors.filter((l) => l.startsWith(file));
      assert.equal(mine.length, 1, `${file}: exactly one error\n${r.output}`);
      assert.match(mine[0], expected, file);
    }
    assert.equal(errors.length, Object.keys(cases).length, r.output);
  }
});
