// The published CLI (scripts/gen-package.mjs runs this), in dist/cli/:
// - cli-bundle.js: npm/src/cli/main.mjs and everything it imports, the
//   library and its wasm glue included, bundled by esbuild into one script
//   (CommonJS inside a function: `import.meta.url` is its parameter
//   __etpackUrl; a command's `import()` becomes a lazy initializer, so
//   `--version` still runs none of the library);
// - cli-bundle.cache: V8's code cache of that script, taken here after it ran
//   one `validate` (the functions it compiled come compiled);
// - executorch-pack.mjs (package.json's `bin`): reads both and runs the
//   script through vm.Script with the cache. A Node whose V8 differs from
//   the one that made the cache rejects it and compiles the script as it
//   would have anyway; the CLI never writes a cache.
// Issue 42 (start-up): the ES modules of the former bundle (one per command
// and ~12 shared chunks) were resolved, read and compiled on every run;
// with the cache, `validate add.pte` costs ~0.86x the CPU it did.
// - validate-fast.js and validate-fast.cache: the same for
//   src/cli/validate-fast.mjs, `validate FILE...` on local files run by the
//   validate-only module (dist/etpack-validate.wasm, no embind) and the same
//   formatting code; the launcher tries it first for `validate` and runs
//   cli-bundle.js when it declines (issue 42: start-up).
// validate --jobs's worker is bundled on its own into validate-worker.mjs,
// found beside the script (validate-run.mjs: new URL('./validate-worker.mjs',
// import.meta.url)). A checkout runs npm/bin/executorch-pack.mjs from its
// sources.
//
// Files are written only when their content changes, each through a rename,
// so tests running this in parallel never see a half-written file; files no
// longer made are removed afterwards. A cache is made again only when the
// script changed or this Node rejects the one there.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { Script } from 'node:vm';
import { basename, join } from 'node:path';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { buildSync } from 'esbuild';

export const CLI_DIR = 'dist/cli';

// Node's built-ins that a bare `node` has not loaded (crypto, stream,
// worker_threads) are required only when a function of theirs is first
// called (issue 42: start-up): the bundle's imports of them are aliased to
// these stand-ins. The others are plain require() calls of the script. A
// name the sources import that is not listed here fails the build.
const LAZY = {
  'node:crypto': ['createHash', 'randomBytes'],
  'node:stream': [],  // Readable: an object whose `from` is called
  'node:worker_threads': ['Worker'],  // constructed with new: a function returning an object makes new give that object
};
const builtinModule = (name) => {
  // A require of createRequire's: esbuild would take `require('node:...')`
  // for the alias again.
  const load = `import { createRequire } from 'node:module';\nlet loaded;\nconst m = () => (loaded ??= createRequire(import.meta.url)(${JSON.stringify(name)}));\n`;
  const stream = name === 'node:stream' ? 'export const Readable = { from: (...a) => m().Readable.from(...a) };\n' : '';
  return load + stream + LAZY[name].map((f) => `export function ${f}(...a) { return new.target ? new (m().${f})(...a) : m().${f}(...a); }\n`).join('');
};
function put(path, text) {
  if (existsSync(path) && readFileSync(path).equals(text)) return;
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

// esbuild's buildSync takes no plugins: the modules above are written to a
// temporary folder and the bundle's `node:` imports aliased to them.
function builtinAliases(dir, names) {
  const alias = {};
  for (const name of names) {
    const file = join(dir, `${name.slice(5)}.mjs`);
    writeFileSync(file, builtinModule(name));
    alias[name] = file;
  }
  return alias;
}

const SCRIPT = 'cli-bundle.js';
const CACHE = 'cli-bundle.cache';
const FAST = 'validate-fast.js';
const FAST_CACHE = 'validate-fast.cache';
const FAST_WASM = 'etpack-validate.wasm';  // in dist/, beside etpack.wasm

// A script: a function of (exports, require, module, __filename,
// __dirname, __etpackUrl) whose exports has `cli(argv)` (main.mjs) or
// `validateFast(argv, compile)` (validate-fast.mjs).
function script(npm, alias, entry = 'src/cli/main.mjs') {
  const { outputFiles } = buildSync({
    alias,
    entryPoints: [join(npm, entry)],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    define: { 'import.meta.url': '__etpackUrl' },
    legalComments: 'none',
    // Whitespace and comments out, constant folding: fewer bytes for V8 to
    // read when the cache is rejected. Names are kept (messages quote
    // constructor names).
    minifyWhitespace: true,
    minifySyntax: true,
    write: false,
    logLevel: 'silent',
  });
  const text = outputFiles[0].text;
  // vm.Script is given no importModuleDynamically: an import() left in the
  // script would fail at run time.
  if (/\bimport\(/.test(text)) throw new Error('build-cli: the CLI script still has an import()');
  return `(function (exports, require, module, __filename, __dirname, __etpackUrl) {${text}\n})`;
}

// package.json's `bin`.
const LAUNCHER = `#!/usr/bin/env node
// executorch-pack's CLI: runs ${SCRIPT} (the CLI bundled into one script)
// with V8's code cache made for it when the package was built
// (scripts/build-cli.mjs in the repository). A Node whose V8 differs rejects
// the cache and compiles the script as usual; nothing is written here.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { readFileSync } = require('node:fs');
const { Script } = require('node:vm');
const { fileURLToPath } = require('node:url');
// The exports of one of the scripts here, run with its cache.
function load(name, cache) {
  const url = new URL(name, import.meta.url);
  const filename = fileURLToPath(url);
  let cachedData;
  try {
    cachedData = readFileSync(new URL(cache, import.meta.url));
  } catch {
    cachedData = undefined;  // no cache: the script is compiled
  }
  const module = { exports: {} };
  new Script(readFileSync(filename, 'utf8'), { filename, cachedData }).runInThisContext()(module.exports, require, module, filename, fileURLToPath(new URL('.', url)), url.href);
  return module.exports;
}

// \`validate FILE...\` first tries ${FAST}; it declines what it does not
// do exactly as the full CLI, before printing anything. Its module's
// compile starts first, so V8's background part of it overlaps the script's
// loading (a compile the fast path then declines costs only CPU).
const argv = process.argv.slice(2);
let done = false;
if (argv[0] === 'validate') {
  try {
    const compiled = WebAssembly.compile(readFileSync(new URL('../${FAST_WASM}', import.meta.url)));
    compiled.catch(() => {});  // a failure declines
    done = await load('${FAST}', '${FAST_CACHE}').validateFast(argv, () => compiled);
  } catch {
    done = false;
  }
}
if (!done) await load('${SCRIPT}', '${CACHE}').cli(argv);
`;

// Made in a child Node with no flags of its own (V8 keys a cache to its
// flags): the script runs \`validate\` on a small program of the
// repository's tests, then its cache is written. Undefined when that fails
// (the CLI then runs without one).
const MAKE_CACHE = `
const { readFileSync, writeFileSync } = require('node:fs');
const { Script } = require('node:vm');
const { pathToFileURL } = require('node:url');
const { dirname } = require('node:path');
const [filename, cache, ...argv] = process.argv.slice(1);
const script = new Script(readFileSync(filename, 'utf8'), { filename });
const module = { exports: {} };
script.runInThisContext()(module.exports, require, module, filename, dirname(filename), pathToFileURL(filename).href);
const run = module.exports.cli ? module.exports.cli(argv)
  : module.exports.validateFast(argv, () => WebAssembly.compile(readFileSync(new URL('../${FAST_WASM}', pathToFileURL(filename)))));
run.then(() => writeFileSync(cache, script.createCachedData()));
`;
function makeCache(npm, dir, name, cache) {
  const tmp = join(dir, `${cache}.${process.pid}.tmp`);
  const warmUp = join(npm, '..', 'tests/fuzz/regressions/unread_segment_past_data.pte');
  const args = existsSync(warmUp) ? ['validate', warmUp] : ['--version'];
  const r = spawnSync(process.execPath, ['-e', MAKE_CACHE, join(dir, name), tmp, ...args], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  if (r.status > 1 || !existsSync(tmp)) {
    rmSync(tmp, { force: true });
    return false;
  }
  renameSync(tmp, join(dir, cache));
  return true;
}

// Whether this Node takes the cache in `dir` for its script.
function cacheTaken(dir, name, cache) {
  const file = join(dir, cache);
  if (!existsSync(file)) return false;
  return !new Script(readFileSync(join(dir, name), 'utf8'), { filename: join(dir, name), cachedData: readFileSync(file) }).cachedDataRejected;
}

export function buildCli(npm) {
  const out = join(npm, CLI_DIR);
  const shims = mkdtempSync(join(tmpdir(), 'etpack-cli-'));
  let cli;
  let fast;
  let worker;
  try {
    const alias = builtinAliases(shims, Object.keys(LAZY));
    cli = script(npm, alias);
    fast = script(npm, alias, 'src/cli/validate-fast.mjs');
    worker = buildSync({
      entryPoints: [{ in: join(npm, 'src/cli/validate-worker.mjs'), out: 'validate-worker' }],
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      outdir: out,
      outExtension: { '.js': '.mjs' },
      legalComments: 'none',
      minifyWhitespace: true,
      minifySyntax: true,
      write: false,
      logLevel: 'silent',
    }).outputFiles[0];
  } finally {
    rmSync(shims, { recursive: true, force: true });
  }
  mkdirSync(out, { recursive: true });
  put(join(out, 'validate-worker.mjs'), Buffer.from(worker.contents));
  put(join(out, 'executorch-pack.mjs'), Buffer.from(LAUNCHER));
  chmodSync(join(out, 'executorch-pack.mjs'), 0o755);
  for (const [name, cache, text] of [[SCRIPT, CACHE, cli], [FAST, FAST_CACHE, fast]]) {
    const scriptFile = join(out, name);
    const changed = !existsSync(scriptFile) || !readFileSync(scriptFile).equals(Buffer.from(text));
    put(scriptFile, Buffer.from(text));
    // (The fast script's cache needs the validate-only module: a build
    // without it ships the script uncached, and the launcher declines.)
    if (changed || !cacheTaken(out, name, cache)) {
      if (!makeCache(npm, out, name, cache)) rmSync(join(out, cache), { force: true });
    }
  }
  const made = new Set([SCRIPT, CACHE, FAST, FAST_CACHE, 'validate-worker.mjs', 'executorch-pack.mjs']);
  for (const name of readdirSync(out)) {
    if (!made.has(name) && /\.(mjs|js)$/.test(name)) rmSync(join(out, name), { force: true });
  }
}
