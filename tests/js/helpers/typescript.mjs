// Compiling TypeScript consumers of the package in a throw-away project that
// has the package linked in as node_modules/executorch-pack.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { ROOT, NPM } from './common.mjs';
import { generate } from '../../../scripts/gen-package.mjs';

const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

const COMMON = {
  strict: true, noEmit: true, skipLibCheck: false, target: 'es2022', lib: ['es2022', 'esnext.disposable', 'dom', 'dom.iterable'],
  types: [],
};
/** Node: `nodenext` resolution (the `node` condition applies). */
export const NODE = { ...COMMON, module: 'nodenext', moduleResolution: 'nodenext', types: ['node'] };
/** Browsers and bundlers: `bundler` resolution (no `node` condition). */
export const BROWSER = { ...COMMON, module: 'esnext', moduleResolution: 'bundler' };

export function tsProject(t) {
  generate();  // npm/types/*.d.ts from the schema and the code lists
  const dir = mkdtempSync(join(tmpdir(), 'etpack-types-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'node_modules/@types'), { recursive: true });
  symlinkSync(NPM, join(dir, 'node_modules/executorch-pack'), 'dir');
  symlinkSync(join(ROOT, 'node_modules/@types/node'), join(dir, 'node_modules/@types/node'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  return dir;
}

// files: { name: source text }; returns tsc's exit status and output.
export function tsc(dir, name, options, files) {
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  const config = join(dir, `${name}.tsconfig.json`);
  writeFileSync(config, JSON.stringify({ compilerOptions: options, files: Object.keys(files) }));
  const r = spawnSync(process.execPath, [TSC, '-p', config], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}
