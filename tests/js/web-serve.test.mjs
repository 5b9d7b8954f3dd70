// The static server of the web pages answers malformed request paths with
// an HTTP error and keeps serving (a bad percent-encoding used to end it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startServer } from '../../web/serve.mjs';

// A raw request (fetch would normalize or refuse these paths itself).
function get(port, path) {
  return new Promise((ok, fail) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      res.resume();
      res.on('end', () => ok(res.statusCode));
    });
    req.on('error', fail);
    req.end();
  });
}

test('bad percent-encoding gives 400 and the server keeps serving', async (t) => {
  const server = await startServer(0);
  t.after(() => server.close());
  const { port } = server.address();
  assert.equal(await get(port, '/%E0%A4%A'), 400);
  assert.equal(await get(port, '/%'), 400);
  assert.equal(await get(port, '/%FF'), 400);
  assert.equal(await get(port, '/a%00b'), 400);
  assert.equal(await get(port, '/pkg/%2e%2e/%2e%2e/etc/passwd'), 403);
  assert.equal(await get(port, '/no-such-file.html'), 404);
  assert.equal(await get(port, '/'), 200);
});
