// `executorch-pack --help` (and the usage printed with no arguments),
// generated from the command registry: every command's synopsis (the first
// line of its usage) and its one-line summary.
import { COMMANDS } from './commands/index.mjs';

const SYNOPSIS = /^Usage: executorch-pack (.*)$/m;

// The synopsis of a command's usage text ("inspect FILE [--json]").
export function synopsis(usage, name) {
  return SYNOPSIS.exec(usage)?.[1] ?? name;
}

export async function mainUsage() {
  const usages = await Promise.all(COMMANDS.map(async (c) => (await c.load()).usage));
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  return `executorch-pack — inspect, validate, repack, diff and re-weight ExecuTorch files

Usage:
${COMMANDS.map((c, i) => `  executorch-pack ${synopsis(usages[i], c.name)}`).join('\n')}
  executorch-pack --version
  executorch-pack <command> --help

Every FILE, PTE or PTD may be an http(s):// URL: only the bytes needed are
fetched, by range requests. --header 'Name: value' (repeatable) is sent to
that URL's host; HF_TOKEN (environment) only to Hugging Face Hub hosts.
--timeout SECONDS (default 30) ends a request idle that long, and one that
runs past it plus its bytes at 64 KiB/s. Text output shows a URL without
its query (a signed URL's credentials).

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`).join('\n')}

Exit status: 0 success; 1 the files' contents are invalid (validate found
errors, repack refused) or differ (diff); 2 usage or I/O problems (a missing
file, a folder given as a file, an output that may not be replaced); 128+N
stopped by signal N.

--json output of every command is one JSON document with "schema": 1,
described by schema/cli-output.schema.json in the package.
Progress of long writes is shown on stderr when it is a terminal
(EXECUTORCH_PACK_PROGRESS=always|never overrides).
`;
}

// The usage of one command, or null when there is no such command.
export async function commandUsage(name) {
  const command = COMMANDS.find((c) => c.name === name);
  return command ? (await command.load()).usage : null;
}
