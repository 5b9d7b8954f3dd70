// The published CLI as one module (scripts/gen-package.mjs runs this): esbuild
// bundles npm/bin/executorch-pack.mjs into npm/dist/cli/executorch-pack.mjs,
// with a chunk per command (the registry's `load: () => import(...)`) and one
// for the library and its wasm glue (loaded by the first `init`), so
// `--version` reads one file and `validate` a handful instead of ~80 modules
// (issue 42: start-up). validate --jobs's worker is bundled on its own into
// one file (sharing no chunk with the CLI, which would split the CLI's into
// more files), found beside the chunk that starts it (validate-run.mjs:
// new URL('./validate-worker.mjs', import.meta.url)). package.json's `bin` names the bundle; a checkout runs
// npm/bin/executorch-pack.mjs from its sources.
//
// Files are written only when their content changes and chunk names are
// content hashes, so tests running this in parallel never see a half-written
// file; chunks no longer referenced are removed afterwards.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { basename, join } from 'node:path';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { buildSync } from 'esbuild';

export const CLI_DIR = 'dist/cli';

// Node's built-ins, as the bundle imports them. An ESM `import ... from
// 'node:fs'` evaluates every export of the module, getters included
// (fs.promises pulls in streams and readline), so the bundle takes them with
// require() instead: the modules a bare `node` has loaded already are read
// from at once, and those it has not (crypto, stream, worker_threads) only
// when a function of theirs is first called (issue 42: start-up). A name the
// sources import that is not listed here fails the build.
const LAZY = {
  'node:crypto': ['createHash', 'randomBytes'],
  'node:stream': [],  // Readable: an object whose `from` is called
  'node:worker_threads': ['Worker'],  // constructed with new: a function returning an object makes new give that object
};
const builtinModule = (name) => {
  const require = "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n";
  if (name in LAZY) {
    const load = `let loaded;\nconst m = () => (loaded ??= require(${JSON.stringify(name)}));\n`;
    const stream = name === 'node:stream' ? 'export const Readable = { from: (...a) => m().Readable.from(...a) };\n' : '';
    return require + load + stream + LAZY[name].map((f) => `export function ${f}(...a) { return new.target ? new (m().${f})(...a) : m().${f}(...a); }\n`).join('');
  }
  const module = createRequire(import.meta.url)(name);
  // Getters (fs.promises, fs.ReadStream) load more modules when read: left out.
  const names = Object.keys(module).filter((k) => k !== 'default' && !Object.getOwnPropertyDescriptor(module, k).get && /^[A-Za-z_$][\w$]*$/.test(k));
  return `${require}const m = require(${JSON.stringify(name)});\nexport default m;\n${names.map((k) => `export const ${k} = m.${k};\n`).join('')}`;
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

export function buildCli(npm) {
  const out = join(npm, CLI_DIR);
  const shims = mkdtempSync(join(tmpdir(), 'etpack-cli-'));
  const alias = builtinAliases(shims, ['node:fs', 'node:path', 'node:url', 'node:events', ...Object.keys(LAZY)]);
  const build = (entry, name, splitting) => buildSync({
    alias: splitting ? alias : {},
    entryPoints: [{ in: join(npm, entry), out: name }],
    bundle: true,
    splitting,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir: out,
    outExtension: { '.js': '.mjs' },
    chunkNames: '[name]-[hash]',
    legalComments: 'none',
    // Whitespace and comments out, constant folding: V8 pre-parses every byte
    // of a module it loads, and the library's chunk is the largest (issue 42:
    // ~238 KB -> ~150 KB). Names are kept (messages quote constructor names).
    minifyWhitespace: true,
    minifySyntax: true,
    write: false,
    logLevel: 'silent',
  });
  let outputs;
  try {
    outputs = [build('bin/executorch-pack.mjs', 'executorch-pack', true), build('src/cli/validate-worker.mjs', 'validate-worker', false)]
      .flatMap((r) => r.outputFiles);
  } finally {
    rmSync(shims, { recursive: true, force: true });
  }
  mkdirSync(out, { recursive: true });
  const written = new Set();
  for (const file of outputs) {
    put(file.path, Buffer.from(file.contents));
    written.add(basename(file.path));
  }
  chmodSync(join(out, 'executorch-pack.mjs'), 0o755);
  for (const name of readdirSync(out)) {
    if (!written.has(name) && name.endsWith('.mjs')) rmSync(join(out, name), { force: true });
  }
}
