// The validator's "Open from URL" (and ?url=) against a CORS-enabled
// loopback range server on another origin: the report, and the bytes fetched
// stated on the page match what the server sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRangeServer } from '../js/helpers/range-server.mjs';
import { pageSession } from './helpers/pages.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const CASE = join(root, '..', 'shared', 'conformance', '13_everything');
let files;
// The model's files on another origin (a CORS range server).
const session = pageSession('web-url', {
  setup: async () => {
    files = await startRangeServer({ 'out.pte': join(CASE, 'out.pte'), 'model.ptd': join(CASE, 'model.ptd'), 'shard_b.ptd': join(CASE, 'shard_b.ptd') }, { cors: true });
  },
  teardown: () => files?.close(),
});

test('validator: Open from URL and ?url= check remote files and say how many bytes were fetched', async () => {
  const page = await session.context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(String(e)));
  const urls = [files.url('f', 'out.pte'), files.url('f', 'model.ptd'), files.url('redirect', 'shard_b.ptd')];
  files.reset();
  await page.goto(`${session.base}/validator.html?${urls.map((u) => `url=${encodeURIComponent(u)}`).join('&')}`);
  await page.waitForFunction(() => /Fetched|rror/.test(document.getElementById('status').textContent), null, { timeout: 30_000 })
    .catch(async (e) => { throw new Error(`${e.message}; status: ${await page.textContent('#status')}; ${problems}`); });
  const status = await page.textContent('#status');
  assert.match(await page.textContent('#verdict'), /^Valid/, status);
  assert.match(status, new RegExp(`\\(${files.stats.bytes} bytes\\)`), `${status} (server sent ${files.stats.bytes})`);
  assert.match(await page.textContent('#summary'), /out\.pte/);
  // Checked in the core's worker, which opened the URLs again (the page's
  // thread stays free); what it read is said apart.
  assert.equal(await page.getAttribute('#status', 'data-core'), 'worker');
  assert.match(status, /The check, in a worker, read them again/);

  files.reset();
  await page.fill('#url', `${files.base}/nothing/here.pte`);
  await page.click('#url-form button');
  await page.waitForSelector('#url-error');
  // The error sits under the URL field (once: the status line points at it),
  // and the earlier result is gone.
  assert.match(await page.textContent('#url-error'), /HTTP_ERROR.*404/);
  assert.doesNotMatch(await page.textContent('#status'), /HTTP_ERROR/);
  assert.equal(await page.getAttribute('#url', 'aria-invalid'), 'true');
  assert.doesNotMatch(await page.textContent('#summary'), /out\.pte/);
  assert.equal(await page.textContent('#verdict'), '—');
  assert.deepEqual(problems, []);
  await page.close();
});
