// The README's JavaScript runs: every ```js block, in order, as one ES
// module in an empty folder with the package installed as
// node_modules/executorch-pack (as the README says). And the example it
// names ships in the package and runs from there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { NPM, ROOT } from './helpers/common.mjs';
import { generate } from '../../scripts/gen-package.mjs';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

function jsBlocks(markdown) {
  return [...markdown.matchAll(/^```(js|javascript|mjs)\n([\s\S]*?)^```$/gm)].map((m) => m[2]);
}

test('every JavaScript block of the README runs, in order, as one module', { timeout: 60_000 }, (t) => {
  const blocks = jsBlocks(README);
  assert.ok(blocks.length >= 5, `found ${blocks.length} blocks`);
  const dir = mkdtempSync(join(tmpdir(), 'etpack-readme-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(NPM, join(dir, 'node_modules/executorch-pack'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'readme', private: true, type: 'module' }));
  writeFileSync(join(dir, 'readme.mjs'), blocks.map((b, i) => `// --- README block ${i + 1}\n${b}`).join('\n'));
  const out = execFileSync(process.execPath, ['readme.mjs'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  assert.match(out, /^true \[\] \[\]$/m, 'the written pair validates');
  for (const f of ['model.pte', 'model.ptd', 'model.repacked.pte']) assert.ok(existsSync(join(dir, f)), f);
});

test('the examples the README names are in the package and run from there', { timeout: 60_000 }, (t) => {
  generate();  // copies README, LICENSE and examples/ into npm/ (as `npm pack` does)
  const files = JSON.parse(readFileSync(join(NPM, 'package.json'), 'utf8')).files;
  for (const name of ['README.md', 'LICENSE', 'examples/']) assert.ok(files.includes(name), `package.json files lists ${name}`);
  const named = [...new Set([...README.matchAll(/examples\/([\w.-]+\.mjs)/g)].map((m) => m[1]))];
  assert.deepEqual(named, ['build-model.mjs']);
  const out = mkdtempSync(join(tmpdir(), 'etpack-readme-example-'));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  for (const name of named) {
    const stdout = execFileSync(process.execPath, [join(NPM, 'examples', name), out], { encoding: 'utf8' });
    assert.match(stdout, /validate: OK/);
  }
});
