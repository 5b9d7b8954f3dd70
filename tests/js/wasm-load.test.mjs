// Loading etpack.wasm in browsers (issue 25): the bytes are fetched before
// anything is compiled, and a failure is WASM_LOAD_FAILED naming every URL
// tried with its HTTP status (no Emscripten noise, no CompileError from a
// 404 page's bytes). fetchWasm is what index.browser.mjs calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NPM } from './helpers/common.mjs';

const { fetchWasm } = await import(join(NPM, 'src', 'wasm-location.mjs'));
const { EtpackError } = await import(join(NPM, 'index.node.mjs'));
const WASM = readFileSync(join(NPM, 'dist', 'etpack.wasm'));

const server = createServer((req, res) => {
  if (req.url === '/assets/etpack.wasm') {
    res.writeHead(200, { 'content-type': 'application/wasm' }).end(WASM);
  } else if (req.url === '/spa/etpack.wasm') {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title>');
  } else {
    res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>');
  }
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${server.address().port}`;
test.after(() => server.close());

test('a 404 is WASM_LOAD_FAILED naming the URL and the status, before compiling', async () => {
  await assert.rejects(fetchWasm([`${origin}/missing/etpack.wasm`]), (e) => {
    assert.ok(e instanceof EtpackError);
    assert.equal(e.code, 'WASM_LOAD_FAILED');
    assert.match(e.message, new RegExp(`^cannot load etpack\\.wasm: ${origin}/missing/etpack\\.wasm: HTTP 404 Not Found; `));
    assert.doesNotMatch(e.message, /CompileError|Aborted|both async and sync/);
    assert.deepEqual(e.urls, [`${origin}/missing/etpack.wasm`]);
    return true;
  });
});

test('a page that is not WebAssembly (an app\'s fallback page, HTTP 200) is refused with its content type', async () => {
  await assert.rejects(fetchWasm([`${origin}/spa/etpack.wasm`]), (e) => e.code === 'WASM_LOAD_FAILED'
    && e.message.includes(`${origin}/spa/etpack.wasm: HTTP 200 with 33 bytes that are not WebAssembly (text/html)`));
});

test('a network error names the URL; every URL tried is listed', async () => {
  await assert.rejects(fetchWasm([`${origin}/a.wasm`, 'http://127.0.0.1:1/etpack.wasm']), (e) => e.code === 'WASM_LOAD_FAILED'
    && e.message.includes(`${origin}/a.wasm: HTTP 404`)
    && e.message.includes('http://127.0.0.1:1/etpack.wasm: network error'));
});

test('the first URL that answers with WebAssembly gives the bytes', async () => {
  const bytes = await fetchWasm([`${origin}/dist/etpack.wasm`, `${origin}/spa/etpack.wasm`, `${origin}/assets/etpack.wasm`]);
  assert.equal(bytes.byteLength, WASM.byteLength);
  assert.ok(Buffer.from(bytes).equals(WASM));
});

test('without fetch: a coded error saying what to do instead', async () => {
  await assert.rejects(fetchWasm(['etpack.wasm'], 42), (e) => e.code === 'WASM_LOAD_FAILED' && /wasmBinary/.test(e.message));
});
