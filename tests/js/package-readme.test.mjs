// The README in the package (npm/docs/README.md, shipped as README.md) is
// for users and its code runs: the ```js blocks in order as one ES module in
// an empty folder with the package installed, then the ```sh blocks there
// (`npx executorch-pack` is the package's CLI); the ```ts blocks compile
// under --strict with `nodenext` and with `bundler` resolution, and run.
// It names only files the package has.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { CLI, NPM } from './helpers/common.mjs';
import { BROWSER, NODE, tsProject, tsc } from './helpers/typescript.mjs';
import { generate } from '../../scripts/gen-package.mjs';

const README = readFileSync(join(NPM, 'docs/README.md'), 'utf8');
const blocks = (lang) => [...README.matchAll(new RegExp(`^\`\`\`(?:${lang})\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1]);

test('the package ships the user README, which names no build internals and only files the package has', () => {
  generate();
  assert.equal(readFileSync(join(NPM, 'README.md'), 'utf8'), README);
  for (const internal of [/cmake/i, /emscripten|emcc/i, /\bscripts\//, /\.\.\/shared/, /\bsrc\/(core|encode|read|schema|model|plan|format|bindings)\b/,
    /\bnpm\//, /test-all|ctest|sanitizer|\.ci\//i, /build:wasm/,
    // no internal references, no notes about versions before the first release
    /\bissues? #?\d+/i, /\b(up to|before|until) 0\.\d/i]) {
    const hit = README.match(internal);
    assert.equal(hit, null, `the user README names a build internal: ${hit?.[0]}`);
  }
  const packed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: NPM, encoding: 'utf8' })
    .replace(/^[^[]*/s, ''))[0].files.map((f) => f.path);
  // What users read besides the README (types, schemas) cites no internal
  // issue and no version before the first release either.
  for (const path of packed.filter((p) => /\.d\.ts$|^schema\/.*\.json$/.test(p))) {
    const hit = readFileSync(join(NPM, path), 'utf8').match(/\bissues? #?\d+|\b(up to|before|until) 0\.\d/i);
    assert.equal(hit, null, `${path}: ${hit?.[0]}`);
  }
  const named = new Set([...README.matchAll(/(?:node_modules\/executorch-pack\/|executorch-pack\/|\.\/|\b)((?:[\w-]+\/)*[\w.-]+\.(?:d\.ts|mjs|json|wasm))\b/g)]
    .map((m) => m[1]).filter((p) => (p.includes('/') || p.startsWith('index.')) && !/^(model|weights|out)\b|safetensors/.test(p)));
  assert.ok(named.has('index.d.ts') && named.has('schema/cli-output.schema.json') && named.has('examples/build-model.mjs'), [...named].join(' '));
  for (const path of named) assert.ok(packed.includes(path), `${path} is named by the README but not in the package`);
});

function folderWithPackage(t, prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(NPM, join(dir, 'node_modules/executorch-pack'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'readme', private: true, type: 'module' }));
  return dir;
}

test('the JavaScript blocks run in order as one module, then the shell blocks in the same folder', { timeout: 120_000 }, (t) => {
  const js = blocks('js');
  const sh = blocks('sh').filter((b) => !/^npm install/.test(b));
  assert.ok(js.length >= 6 && sh.length >= 1, `${js.length} js, ${sh.length} sh blocks`);
  const dir = folderWithPackage(t, 'etpack-pkg-readme-');
  writeFileSync(join(dir, 'readme.mjs'), js.map((b, i) => `// --- README block ${i + 1}\n${b}`).join('\n'));
  const out = execFileSync(process.execPath, ['readme.mjs'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  assert.match(out, /^true \[\] \[\]$/m, 'the written pair validates');
  assert.match(out, /^forward \[\]$/m, 'the summary narrowed to a .pte');
  assert.match(out, /^\[ 'linear\.weight' \] true$/m, 'new weights validate');
  for (const f of ['model.pte', 'model.ptd', 'model.repacked.pte', 'model.safetensors']) assert.ok(existsSync(join(dir, f)), f);
  // `npx executorch-pack` is the package's bin.
  const script = `set -e\nnpx() { [ "$1" = executorch-pack ] && shift; "${process.execPath}" "${CLI}" "$@"; }\n${sh.join('\n')}`;
  const cli = execFileSync('bash', ['-c', script], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  assert.match(cli, /"ok": true/);
  for (const f of ['out/model.pte', 'weights.safetensors', 'model-new.ptd']) assert.ok(existsSync(join(dir, f)), f);
});

test('the TypeScript blocks compile under --strict (nodenext and bundler) and run', { timeout: 180_000 }, (t) => {
  const ts = blocks('ts');
  assert.ok(ts.length >= 1);
  const dir = tsProject(t);
  const files = Object.fromEntries(ts.map((b, i) => [`readme-${i + 1}.mts`, b]));
  for (const [name, options] of [['node', NODE], ['bundler', BROWSER]]) {
    const r = tsc(dir, name, options, files);
    assert.equal(r.status, 0, `${name}:\n${r.output}`);
  }
  const built = tsc(dir, 'emit', { ...NODE, noEmit: false, outDir: 'out' }, files);
  assert.equal(built.status, 0, built.output);
  for (const name of Object.keys(files)) {
    const out = execFileSync(process.execPath, [join(dir, 'out', name.replace(/\.mts$/, '.mjs'))], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    assert.match(out, /^true \[ 'forward' \] \d+ true$/m, out);
  }
});
