// Hostile and unusual inputs through the CLI (issue 11): builds crafted
// files in a temporary folder, then runs `executorch-pack validate` and
// `inspect` on each in a child process and prints wall time, peak RSS, the
// exit status and the first line of output. Prints figures; asserts
// nothing (a benchmark, not a test).
//
//   node bench/hostile.mjs            (npm run bench:hostile)
//   BENCH_DIR=/path node bench/hostile.mjs   where temporary files go
//   node bench/hostile.mjs keys dag          only the files whose names contain a word
//   BENCH_RUNS=5 node bench/hostile.mjs keys  each CLI command 5 times: the
//                                            fastest run, and the slowest after it
//                                            (a shared machine's spread)
//
// Targets: each small hostile file refused or checked in < 2 s with
// < 256 MiB RSS; a 1M-key .ptd inspected in < 5 s; a 150k-segment .pte
// inspected, also in the validator page (Chromium; a "page" row).
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import init from '../npm/index.node.mjs';
import { runCli } from './measure.mjs';
import { dagPte, manyKeysPtd, manySegmentsPte } from '../tests/js/helpers/hostile_files.mjs';

const MiB = 1 << 20;
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS) || 1);

// One Double per special value (program JSON text with Python's tokens).
function specialDoublesPte(et) {
  const values = ['NaN', 'Infinity', '-Infinity', '-0.0', '5e-324']
    .map((t) => `{"val": {"double_val": ${t}}, "val_type": "Double"}`);
  const text = `{"version": 0, "execution_plan": [{"name": "forward", "values": [${values.join(', ')}, ` +
    '{"val": {"items": [NaN, Infinity, -Infinity, -0.0]}, "val_type": "DoubleList"}], ' +
    '"inputs": [], "outputs": [], "chains": [], "operators": [], "delegates": [], "non_const_buffer_sizes": []}]}';
  return et.serializePteBinary({ program: text });
}

// The validator page in Debian's chromium (playwright-core, as the browser
// tests): seconds from choosing the file to the verdict and summary shown.
// Null when there is no chromium here.
async function openValidator() {
  if (!existsSync('/usr/bin/chromium')) return null;
  const { chromium } = await import('playwright-core');
  const { startServer } = await import('../web/serve.mjs');
  const server = await startServer(0);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/validator.html`);
  await page.waitForFunction(() => /ready/.test(document.getElementById('status').textContent));
  return {
    async check(path) {
      await page.reload();
      await page.waitForFunction(() => /ready/.test(document.getElementById('status').textContent));
      const start = performance.now();
      await page.setInputFiles('#files', path);
      await page.waitForFunction(() => document.getElementById('verdict').textContent !== '—', null, { timeout: 300_000 });
      const ms = performance.now() - start;
      return { ms, verdict: (await page.textContent('#verdict')).trim().slice(0, 60), items: await page.$$eval('#maps .seg', (x) => x.length) };
    },
    async close() { await browser.close(); server.close(); },
  };
}

const et = await init();
const page = await openValidator();
const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'etpack-hostile-'));
try {
  const files = [
    { name: 'dag-4mb.pte', small: true, make: () => dagPte(1000, 1_000_000) },
    { name: 'dag-16mb.pte', make: () => dagPte(1000, 4_000_000) },
    { name: 'dag-64mb.pte', make: () => dagPte(1000, 16_000_000) },
    { name: 'doubles.pte', small: true, make: () => specialDoublesPte(et) },
    { name: 'keys-200k.ptd', make: () => manyKeysPtd(et, 200_000) },
    { name: 'keys-1m.ptd', page: true, make: () => manyKeysPtd(et, 1_000_000) },
    { name: 'segments-150k.pte', page: true, make: () => manySegmentsPte(et, 150_000) },
  ];
  console.log(`executorch-pack hostile inputs — node ${process.version}, ${new Date().toISOString()}`);
  console.log('file                  size      command   time      peak RSS  exit  first line of output');
  const words = process.argv.slice(2);
  for (const f of files.filter((x) => !words.length || words.some((w) => x.name.includes(w)))) {
    const path = join(dir, f.name);
    let made;
    try {
      made = f.make();
    } catch (e) {
      console.log(`${f.name.padEnd(21)} could not be built: ${e.code ?? ''} ${String(e.message).slice(0, 100)}`);
      continue;
    }
    writeFileSync(path, made);
    made = null;
    const size = statSync(path).size;
    for (const command of ['validate', 'inspect']) {
      const runs = Array.from({ length: RUNS }, () => runCli(dir, [command, path]));
      const r = runs.reduce((a, b) => (b.ms < a.ms ? b : a));
      const slowest = Math.max(...runs.map((x) => x.ms));  // RUNS numbers: a spread is safe here
      const target = f.small ? (r.ms < 2000 && r.rssMiB < 256 ? ' ✓' : ' ✗ (target < 2 s, < 256 MiB)') : '';
      console.log(`${f.name.padEnd(21)} ${`${(size / MiB).toFixed(2)} MiB`.padEnd(9)} ${command.padEnd(9)} ` +
        `${`${(r.ms / 1000).toFixed(2)} s`.padEnd(9)} ${`${r.rssMiB.toFixed(0)} MiB`.padEnd(9)} ${String(r.status).padEnd(5)} ` +
        `${r.first.slice(0, 110)}${target}${RUNS > 1 ? ` (fastest of ${RUNS}; slowest ${(slowest / 1000).toFixed(2)} s)` : ''}`);
    }
    if (f.page && page) {
      const r = await page.check(path);
      console.log(`${f.name.padEnd(21)} ${`${(size / MiB).toFixed(2)} MiB`.padEnd(9)} ${'page'.padEnd(9)} ` +
        `${`${(r.ms / 1000).toFixed(2)} s`.padEnd(9)} ${'-'.padEnd(9)} ${'-'.padEnd(5)} validator.html: ${r.verdict} (${r.items} file-map items)`);
    }
    rmSync(path, { force: true });
  }
} finally {
  await page?.close();
  rmSync(dir, { recursive: true, force: true });
}
