// `executorch-pack --help` (and the usage printed with no arguments),
// generated from the command registry: every command's synopsis (the first
// line of its usage) and its one-line summary.
import { COMMANDS } from './commands/index.mjs';

const SYNOPSIS = /^Usage: executorch-pack (.*)$/m;

// The synopsis of a command's usage text ("inspect FILE [--json]").
export function synopsis(usage, name) {
  return SYNOPSIS.exec(usage)?.[1] ?? name;
}

// The contract every command keeps (printed by --help and after each
// command's own usage; the README says the same).
export const CONTRACT = `Exit status (every command): 0 success; 1 an input is invalid (malformed,
of a kind the command does not take, refused for its contents, validate
found errors) or differs (diff); 2 usage, I/O or network problems, or an
output that may not be written (exists, is an input, is no regular file);
128+N stopped by signal N.
Every error names its file. --json (every command, and alone) prints one
JSON document on stdout, errors included: "ok" (true exactly when the exit
status is 0), "schema": 1, "command", and on failure "error": {code,
message, file, exitStatus}; see schema/cli-output.schema.json.
`;

export async function commandList() {
  const usages = await Promise.all(COMMANDS.map(async (c) => (await c.load()).usage));
  return COMMANDS.map((c, i) => ({ name: c.name, summary: c.summary, synopsis: `executorch-pack ${synopsis(usages[i], c.name)}`, takes: c.takes }));
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

${CONTRACT}Progress of long writes is shown on stderr when it is a terminal
(EXECUTORCH_PACK_PROGRESS=always|never overrides).
`;
}

// The usage of one command, or null when there is no such command.
export async function commandUsage(name) {
  const command = COMMANDS.find((c) => c.name === name);
  return command ? `${(await command.load()).usage}\n${CONTRACT}` : null;
}
