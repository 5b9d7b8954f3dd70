#!/usr/bin/env node
// executorch-pack CLI: a dispatcher over the command registry
// (src/cli/commands/index.mjs: one file per command). Exit codes: 0 success
// (validate: no errors), 1 validate found errors or an operation failed on
// the file's contents (coded error), 2 usage or I/O problems, 128+N stopped
// by signal N.
import { readFileSync } from 'node:fs';
import init from '../index.node.mjs';
import { UsageError, closest, parseArgs } from '../src/cli/args.mjs';
import { errorDocument, exitStatus, reportError } from '../src/cli/report.mjs';
import { stringify } from '../src/cli/format.mjs';
import { COMMANDS, commandNamed } from '../src/cli/commands/index.mjs';
import { commandUsage, mainUsage } from '../src/cli/usage.mjs';
import { quietOnClosedPipes } from '../src/cli/files.mjs';

// Prints a command's usage (the main usage for none or an unknown one).
async function help(command) {
  process.stdout.write((await commandUsage(command ?? '')) ?? await mainUsage());
  return 0;
}

async function main(argv) {
  const [name, ...rest] = argv;
  if (name === undefined) {
    process.stderr.write(await mainUsage());
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') return help(rest[0]);
  if (name === '--version' || name === '-v') {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    process.stdout.write(`${pkg.version}\n`);
    return 0;
  }
  const command = commandNamed(name);
  if (!command) {
    const guess = closest(name, COMMANDS.map((c) => c.name));
    throw new UsageError(`unknown command '${name}'${guess ? ` (did you mean ${guess}?)` : ''}`);
  }
  return (await command.load()).run(rest, { init, parseArgs, UsageError, help });
}

// `--json` among a known command's arguments (before a `--`): its errors
// are a JSON document on stdout too, whichever command failed and how.
function jsonCommand(argv) {
  const [name, ...rest] = argv;
  const end = rest.indexOf('--');
  return commandNamed(name) && (end < 0 ? rest : rest.slice(0, end)).includes('--json') ? name : null;
}

quietOnClosedPipes();  // `validate X | true`: the status of the work, no EPIPE stack
try {
  process.exitCode = await main(process.argv.slice(2));
} catch (e) {
  reportError(e);
  const json = jsonCommand(process.argv.slice(2));
  if (json) process.stdout.write(`${stringify(errorDocument(json, e))}\n`);
  process.exitCode = exitStatus(e);
}
