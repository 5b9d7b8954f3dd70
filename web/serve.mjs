// Static server for the web pages: `node web/serve.mjs [--port N]`.
// Serves web/ at / and the npm package at /pkg/ on 127.0.0.1 only.
// `npm run build:web` (scripts/build-web.mjs) copies the same tree, by the
// same resolvePath, into web/dist/ for any static server.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const webDir = fileURLToPath(new URL('.', import.meta.url));
const pkgDir = resolve(webDir, '..', 'npm');
const dagreFile = resolve(webDir, '..', 'node_modules', '@dagrejs', 'dagre', 'dist', 'dagre.esm.js');
const TYPES = {
  '.html': 'text/html; charset=utf-8', '.css': 'text/css; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm', '.json': 'application/json', '.svg': 'image/svg+xml',
};

// The file a request path names, or an HTTP status refusing it: 400 for a
// path that is not valid percent-encoded UTF-8 (decodeURIComponent throws,
// and an exception here must never end the server), 403 outside the roots.
export function resolvePath(urlPath) {
  let path;
  try {
    path = decodeURIComponent(String(urlPath).split('?')[0]);
  } catch {
    return { status: 400, message: 'bad request: malformed percent-encoding' };
  }
  if (path.includes('\0')) return { status: 400, message: 'bad request: NUL in path' };
  // The one file of node_modules the pages load: the Program view's layout library.
  if (path === '/vendor/dagre.esm.js') return { file: dagreFile };
  let base = webDir;
  if (path.startsWith('/pkg/')) { base = pkgDir; path = path.slice(4); }
  if (path.endsWith('/')) path += 'index.html';
  const full = normalize(join(base, path));
  return full.startsWith(resolve(base) + sep) ? { file: full } : { status: 403, message: 'forbidden' };
}

async function handle(req, res) {
  const { file, status, message } = resolvePath(req.url);
  if (!file) { res.writeHead(status, { 'content-type': 'text/plain' }).end(message); return; }
  try {
    const body = await readFile(file);
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' });
    res.end(body);
  } catch {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  }
}

export function startServer(port = 8080) {
  const server = createServer((req, res) => {
    // Whatever a request does, the server outlives it.
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal error');
    });
  });
  return new Promise((ok) => server.listen(port, '127.0.0.1', () => ok(server)));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--port');
  const server = await startServer(i > 0 ? Number(process.argv[i + 1]) : 8080);
  console.log(`serving web/ on http://127.0.0.1:${server.address().port}/`);
}
