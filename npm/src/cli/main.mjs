// The CLI's dispatcher (bin/executorch-pack.mjs runs it from the sources,
// dist/cli/executorch-pack.mjs from the bundled script). Only what every run
// needs is imported here: the library (and its wasm) is loaded by the first
// command that calls `init`, so `--version` and `--help` never run it.
import { VERSION } from '../version.mjs';
import { UsageError, closest, parseArgs } from './args.mjs';
import { errorDocument, exitStatus, jsonReply, reportError } from './report.mjs';
import { stringify } from './format.mjs';
import { COMMANDS, commandNamed } from './commands/index.mjs';
import { commandList, commandUsage, mainUsage } from './usage.mjs';
import { quietOnClosedPipes, writeOut } from './files.mjs';
import { attribute } from './contract.mjs';
import { openedInputs } from './inputs.mjs';

// `--json` before a `--`: every reply, errors included, is JSON.
function wantsJson(argv) {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).includes('--json');
}

// `--help` or `-h` before a `--`: the command prints its usage only.
function asksHelp(argv) {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

// Prints a command's usage (the main usage for none or an unknown one).
async function help(command) {
  process.stdout.write((await commandUsage(command ?? '')) ?? await mainUsage());
  return 0;
}

const version = () => VERSION;
const init = async (options) => (await import('../../index.node.mjs')).default(options);

async function main(argv, json) {
  const args = json && !commandNamed(argv[0]) ? argv.filter((a) => a !== '--json') : argv;
  const [name, ...rest] = args;
  if (name === undefined) {
    if (!json) {
      process.stderr.write(await mainUsage());
      return 2;
    }
    throw new UsageError(`a command is needed: ${COMMANDS.map((c) => c.name).join(', ')} (executorch-pack --help)`);
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    if (!json || commandNamed(rest[0])) return help(rest[0]);
    process.stdout.write(jsonReply(null, { version: version(), commands: await commandList() }));
    return 0;
  }
  if (name === '--version' || name === '-v') {
    writeOut(json ? jsonReply(null, { version: version() }) : `${version()}\n`);
    return 0;
  }
  const command = commandNamed(name);
  if (!command) {
    const guess = closest(name, COMMANDS.map((c) => c.name));
    throw new UsageError(`unknown command '${name}'${guess ? ` (did you mean ${guess}?)` : ''}`);
  }
  // Every command runs the core: its wasm is read and compiled (V8 does
  // most of it on another thread) while the command and the library load.
  // (Imported here: --version and --help never load it.)
  if (!asksHelp(rest)) import('../node-wasm.mjs').then((m) => m.compileWasm()).catch(() => {});  // a failure is init()'s to report
  return (await command.load()).run(rest, { init, parseArgs, UsageError, help });
}

// Runs the CLI on `argv` (the arguments after the script) and sets
// process.exitCode.
export async function cli(argv) {
  quietOnClosedPipes();  // `validate X | true`: the status of the work, no EPIPE stack
  const json = wantsJson(argv);
  try {
    process.exitCode = await main(argv, json);
  } catch (e) {
    const command = commandNamed(argv[0]);
    // Inputs were opened, so the core is loaded: it reads them again, one at
    // a time, to find the file an error is about (contract.mjs).
    const et = openedInputs().length > 1 ? await init().catch(() => null) : null;
    attribute(e, command, et);
    reportError(e);
    if (json) process.stdout.write(`${stringify(errorDocument(command?.name ?? null, e))}\n`);
    process.exitCode = exitStatus(e);
  }
}
