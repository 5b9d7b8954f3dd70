// Running the CLI in a child process for the benchmarks: wall time, peak RSS
// (the child's own process.resourceUsage(), written at exit by a preloaded
// module, so the figure is the child's alone), exit status, output size and
// the first line it printed. A figure, never an assertion.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../npm/bin/executorch-pack.mjs', import.meta.url));

// `dir`: a scratch folder for the preload and the RSS file.
export function runCli(dir, args, { maxBuffer = 1 << 30, timeout = 300_000 } = {}) {
  const rssFile = join(dir, 'rss.txt');
  const preload = join(dir, 'rss-at-exit.mjs');
  writeFileSync(preload, "import { writeFileSync } from 'node:fs';\n" +
    "process.on('exit', () => writeFileSync(process.env.ETPACK_BENCH_RSS, String(process.resourceUsage().maxRSS)));\n");
  rmSync(rssFile, { force: true });
  const start = performance.now();
  const child = spawnSync(process.execPath, ['--import', preload, cli, ...args], {
    encoding: 'buffer', env: { ...process.env, ETPACK_BENCH_RSS: rssFile }, maxBuffer, timeout,
  });
  const ms = performance.now() - start;
  let rssMiB = NaN;
  try { rssMiB = Number(readFileSync(rssFile, 'utf8')) / 1024; } catch { /* killed before exit */ }
  // Only the start of a large output is decoded: the first line is all that is shown.
  const text = `${child.stdout?.subarray(0, 4096) ?? ''}${child.stderr ?? ''}`;
  const first = (text.split('\n').find((l) => l.trim()) ?? '').trim();
  return { ms, rssMiB, status: child.status ?? child.signal, outMiB: (child.stdout?.length ?? 0) / (1 << 20), first };
}
