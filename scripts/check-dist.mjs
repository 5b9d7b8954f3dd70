// Refuses to pack the npm package when its built module is missing, older
// than the C++ sources, or when the version the entries report
// (npm/src/version.mjs: package.json is not read at run time, bundles do not
// carry it) disagrees with package.json.
import { readFileSync, statSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const npm = join(root, 'npm');
const fail = (message) => {
  console.error(`check-dist: ${message}`);
  process.exit(1);
};

let built;
try {
  // A relink rewrites the .wasm but leaves etpack.mjs as it was when its
  // text does not change (emcc 3.1.6): the .wasm's time is the build's; the
  // .mjs must merely exist.
  statSync(join(npm, 'dist/etpack.mjs'));
  // (the CLI's validate-only module is linked in the same build: the older of the two)
  built = Math.min(statSync(join(npm, 'dist/etpack.wasm')).mtimeMs, statSync(join(npm, 'dist/etpack-validate.wasm')).mtimeMs);
} catch {
  fail('npm/dist is not built: run `npm run build:wasm` at the repository root');
}
const newest = (dir) => {
  let t = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    t = Math.max(t, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return t;
};
if (newest(join(root, 'src')) > built) fail('npm/dist is older than src/: rebuild with `npm run build:wasm`');
const version = JSON.parse(readFileSync(join(npm, 'package.json'), 'utf8')).version;
if (!readFileSync(join(npm, 'src/version.mjs'), 'utf8').includes(`VERSION = '${version}'`)) {
  fail(`npm/src/version.mjs does not declare version ${version}`);
}
console.log(`check-dist: npm/dist is current (version ${version})`);
