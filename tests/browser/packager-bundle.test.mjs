// The packager page bundles test cases: a conformance model's program and
// its cases as safetensors (written by the CLI's unbundle) become a .bpte
// download equal, byte for byte, to et.serializeBundledProgram of the same
// input (and to the vector); a file that makes no test cases is refused in
// plain words, nothing offered for download.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadApi } from '../js/helpers/common.mjs';
import { runCli } from '../js/helpers/cli.mjs';
import { openPage, pageSession } from './helpers/pages.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const vector = join(root, '..', 'shared', 'conformance-bpte', 'v02_add_three_cases');
const session = pageSession('packager-bundle', {
  launch: { acceptDownloads: true },
  // The vector's program and cases as the CLI's unbundle writes them.
  setup: async ({ tmp }) => {
    const un = await runCli(['unbundle', join(vector, 'out.bpte'), '-o', join(tmp, 'cases')]);
    assert.equal(un.status, 0, un.stderr);
  },
});

test('packager: a .pte and safetensors of test cases download as the .bpte serializeBundledProgram writes', async () => {
  const { page, problems } = await openPage(session, 'packager.html');
  const programPath = join(session.tmp, 'cases', 'program.pte');
  const casesPath = join(session.tmp, 'cases', 'cases.safetensors');
  await page.setInputFiles('#bundlePte', programPath);
  await page.setInputFiles('#bundleCases', casesPath);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#bundle')]);
  assert.equal(download.suggestedFilename(), 'program.bpte');
  const downloaded = new Uint8Array(readFileSync(await download.path()));
  const et = await loadApi();
  const program = new Uint8Array(readFileSync(programPath));
  const cases = await et.testCasesFromSafetensors([new Uint8Array(readFileSync(casesPath))]);
  assert.deepEqual(downloaded, et.serializeBundledProgram({ ...cases, program }));
  assert.deepEqual(downloaded, new Uint8Array(readFileSync(join(vector, 'out.bpte'))));
  assert.match(await page.textContent('#bundleResult'), /Wrote program\.bpte .*1 suite\(s\), 3 test case\(s\)/);
  assert.equal(await page.locator('#bundleDownloads a').count(), 1);

  // Values numbered with a gap: refused with the code and plain words.
  const head = new TextEncoder().encode(JSON.stringify({ 'forward.0.input.1': { dtype: 'F32', shape: [], data_offsets: [0, 4] } }).padEnd(48));
  const gap = new Uint8Array(8 + head.length + 4);
  new DataView(gap.buffer).setBigUint64(0, BigInt(head.length), true);
  gap.set(head, 8);
  writeFileSync(join(session.tmp, 'gap.safetensors'), gap);
  await page.setInputFiles('#bundleCases', join(session.tmp, 'gap.safetensors'));
  await page.click('#bundle');
  await page.waitForFunction(() => document.querySelector('#bundleResult .error'));
  const refusal = await page.textContent('#bundleResult');
  assert.match(refusal, /Not bundled: INVALID_INPUT: "forward\.0\.input\.0" is missing/);
  assert.equal(await page.locator('#bundleResult .hint').count(), 1);
  assert.equal(await page.locator('#bundleDownloads a').count(), 0);
  assert.deepEqual(problems, []);
});
