// `npm run build:web` (`node scripts/build-web.mjs [OUT]`): web/dist/ (or OUT), the validator and packager pages with
// everything they load (the package's browser entry and the modules it
// imports, etpack.wasm, dagre), ready for any static file server. The
// files are found by following the pages' references (HTML src/href,
// module imports, `new URL('…', import.meta.url)`) from the pages, each
// one resolved as web/serve.mjs serves it (resolvePath), so the copy holds
// exactly what the served pages load. Needs the built package (npm/dist:
// `npm run build:wasm`).
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolvePath } from '../web/serve.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = process.argv[2] ? resolve(process.argv[2]) : join(root, 'web', 'dist');
const PAGES = ['/index.html', '/validator.html', '/packager.html'];

// The relative references a file makes, as URL paths.
function references(urlPath, text) {
  const found = [];
  const patterns = urlPath.endsWith('.html')
    ? [/\b(?:src|href)="([^"#?]+)"/g]
    : [/\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*['"]([^'"]+)['"]/g, /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g, /new URL\(\s*['"]([^'"]+)['"]\s*,\s*import\.meta\.url\s*\)/g];
  for (const re of patterns) {
    for (const m of text.matchAll(re)) {
      const ref = m[1];
      if (/^[a-z]+:/i.test(ref) || ref.startsWith('//')) continue;  // another origin
      if (!ref.startsWith('.') && !ref.startsWith('/') && !/\.(html|css|mjs|js)$/.test(ref)) continue;  // a bare specifier
      found.push(ref.startsWith('/') ? ref : posix.join(posix.dirname(urlPath), ref));
    }
  }
  return found;
}

if (!existsSync(join(root, 'npm', 'dist', 'etpack.wasm'))) {
  console.error('npm/dist/etpack.wasm is missing: run `npm run build:wasm` first.');
  process.exit(1);
}
rmSync(out, { recursive: true, force: true });
const seen = new Set(), queue = [...PAGES];
while (queue.length) {
  const urlPath = queue.shift();
  if (seen.has(urlPath)) continue;
  seen.add(urlPath);
  const { file, status, message } = resolvePath(urlPath);
  if (!file || !existsSync(file)) {
    // A page must be there; a reference read out of a module's text may be a comment's example.
    if (PAGES.includes(urlPath)) throw new Error(`${urlPath}: ${message ?? 'not found'} (${status ?? 404})`);
    console.warn(`skipped ${urlPath}: ${message ?? 'not found'}`);
    continue;
  }
  const target = join(out, urlPath);
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(file, target);
  if (/\.(html|mjs|js)$/.test(urlPath)) for (const ref of references(urlPath, readFileSync(file, 'utf8'))) queue.push(ref);
}
console.log(`${out}: ${seen.size} files (serve it with any static server, e.g. \`python3 -m http.server -d ${out}\`)`);
