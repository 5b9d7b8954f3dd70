// Running the CLI from tests: a child process per call, with bounded
// parallelism for many calls.
import { execFile } from 'node:child_process';
import { CLI } from './common.mjs';

// { status, stdout, stderr } of `executorch-pack ...args`.
export function runCli(args, options = {}) {
  return new Promise((resolvePromise) => {
    execFile(process.execPath, [CLI, ...args], { maxBuffer: 64 << 20, ...options }, (error, stdout, stderr) => {
      resolvePromise({ status: error ? error.code : 0, stdout, stderr });
    });
  });
}

// Runs jobs (functions returning promises) with at most `width` at a time.
export async function all(jobs, width = 8) {
  const results = new Array(jobs.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]();
    }
  }));
  return results;
}
