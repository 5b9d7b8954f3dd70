// The validator page reads a BundledProgram (.bpte): its test cases per
// method, then its program as a .pte; validate()'s BUNDLE_* findings with
// their plain words (web/bundled-view.mjs, the hook in web/validator.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openPage, pageSession } from './helpers/pages.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const vectors = join(root, '..', 'shared', 'conformance-bpte');
const session = pageSession('bpte-web');

test('validator: a .bpte shows its test cases and program; a case the runtime refuses is an explained error, a suite it never reads a warning', async () => {
  const { page, problems } = await openPage(session, 'validator.html');
  await page.setInputFiles('#files', join(vectors, 'v02_add_three_cases', 'out.bpte'));
  await page.waitForFunction(() => document.getElementById('verdict').textContent !== '—');
  assert.match(await page.textContent('#verdict'), /^Valid/);
  const summary = await page.textContent('#summary');
  assert.match(summary, /bundled program \(\.bpte\)/);
  assert.match(summary, /Test cases of forward \(3\)/);
  assert.match(summary, /aten::add/, 'the program is shown as a .pte');
  await page.setInputFiles('#files', join(vectors, 'v18_all_value_types', 'out.bpte'));
  await page.waitForFunction(() => /^Invalid/.test(document.getElementById('verdict').textContent));
  const findings = await page.textContent('#findings');
  assert.match(findings, /BUNDLE_VALUE_TYPE_MISMATCH/);
  assert.match(findings, /does not fit its method/);
  await page.setInputFiles('#files', join(vectors, 'v17_multi_methods', 'out.bpte'));
  await page.waitForFunction(() => /BUNDLE_METHOD_NOT_FOUND/.test(document.getElementById('findings').textContent));
  assert.match(await page.textContent('#findings'), /the runtime never reads/);
  assert.deepEqual(problems, []);
});
