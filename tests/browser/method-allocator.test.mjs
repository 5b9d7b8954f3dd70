// The validator page's method allocator figures (issue 26): per method and
// for every method in one pool, counting the .ptd files dropped beside the
// .pte, as inspect() gives them in Node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import init from '../../npm/index.node.mjs';
import { openPage, pageSession } from './helpers/pages.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const everything = join(root, '..', 'shared', 'conformance', '13_everything');
const session = pageSession('web-pool');

test('validator: the method allocator per method and for the model, with the .ptd files given counted', async () => {
  const et = await init();
  const files = ['out.pte', 'model.ptd', 'shard_b.ptd'].map((f) => join(everything, f));
  const s = et.inspect(files[0], { dataFiles: files.slice(1) });
  const { page, problems } = await openPage(session, 'validator.html');
  await page.setInputFiles('#files', files);
  await page.waitForFunction(() => document.getElementById('verdict').textContent !== '—');
  const text = await page.textContent('#summary');
  const pool = s.methods[0].memory.methodAllocator['64-bit'];
  assert.ok(text.includes(`64-bit: ${pool.withTempAllocator} bytes (${pool.withoutTempAllocator} without a temp allocator)`), text.slice(0, 400));
  const all = s.methodAllocator.allMethods.arm32;
  assert.ok(text.includes('Method allocator for every method in one pool, with the 2 .ptd file(s) given (a merged data map per method)'), text);
  assert.ok(text.includes(`arm32: ${all.withTempAllocator} bytes`), text);
  assert.match(text, /for ExecuTorch at cff6f4dd/);
  assert.deepEqual(problems, []);
});
