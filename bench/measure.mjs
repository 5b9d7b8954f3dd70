// Running the CLI in a child process for the benchmarks: wall time, peak RSS
// (the child's own process.resourceUsage(), written at exit by a preloaded
// module, so the figure is the child's alone), exit status, output size and
// the first line it printed. A figure, never an assertion.
import { spawnSync } from 'node:child_process';
import { closeSync, fstatSync, openSync, readFileSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../npm/bin/executorch-pack.mjs', import.meta.url));

// `dir`: a scratch folder for the preload, the RSS file and the output.
// Standard output goes to a file there, as `CMD > FILE` would: a pipe read
// by this process would time our copying of a large output (graph of
// 100,000 instructions prints 121 MiB) as much as the command.
export function runCli(dir, args, { timeout = 300_000 } = {}) {
  const rssFile = join(dir, 'rss.txt');
  const preload = join(dir, 'rss-at-exit.mjs');
  const outFile = join(dir, 'stdout.bin');
  writeFileSync(preload, "import { writeFileSync } from 'node:fs';\n" +
    "process.on('exit', () => writeFileSync(process.env.ETPACK_BENCH_RSS, String(process.resourceUsage().maxRSS)));\n");
  rmSync(rssFile, { force: true });
  const out = openSync(outFile, 'w+');
  let child, ms, outBytes, head;
  try {
    const start = performance.now();
    child = spawnSync(process.execPath, ['--import', preload, cli, ...args], {
      stdio: ['ignore', out, 'pipe'], env: { ...process.env, ETPACK_BENCH_RSS: rssFile }, timeout,
    });
    ms = performance.now() - start;
    outBytes = fstatSync(out).size;
    // Only the start of a large output is read: the first line is all that is shown.
    head = Buffer.alloc(Math.min(4096, outBytes));
    readSync(out, head, 0, head.length, 0);
  } finally {
    closeSync(out);
    rmSync(outFile, { force: true });
  }
  let rssMiB = NaN;
  try { rssMiB = Number(readFileSync(rssFile, 'utf8')) / 1024; } catch { /* killed before exit */ }
  const text = `${head}${child.stderr ?? ''}`;
  const first = (text.split('\n').find((l) => l.trim()) ?? '').trim();
  return { ms, rssMiB, status: child.status ?? child.signal, outMiB: outBytes / (1 << 20), first };
}
