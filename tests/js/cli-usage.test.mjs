// The CLI's usage is generated from its command registry
// (npm/src/cli/commands/index.mjs): `--help` and the no-argument usage list
// every registered command with its synopsis and one-line summary, and
// `<command> --help` / `help <command>` print that command's own usage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { NPM } from './helpers/common.mjs';
import { all, runCli } from './helpers/cli.mjs';

const { COMMANDS } = await import(join(NPM, 'src', 'cli', 'commands', 'index.mjs'));
const { CONTRACT } = await import(join(NPM, 'src', 'cli', 'usage.mjs'));

test('the usage lists every registered command, with its synopsis and summary', async () => {
  assert.ok(COMMANDS.length >= 6);
  const [help, none] = await all([() => runCli(['--help']), () => runCli([])]);
  assert.equal(help.status, 0);
  assert.equal(none.status, 2);
  assert.equal(none.stdout, '');
  assert.equal(none.stderr, help.stdout, 'no arguments: the same usage, on stderr');
  const [usagePart, rest] = help.stdout.split('\nCommands:\n');
  const commandsPart = rest.split('\n\n')[0].split('\n');
  assert.equal(commandsPart.length, COMMANDS.length, 'one line per command under Commands:');
  for (const [i, c] of COMMANDS.entries()) {
    const { usage } = await c.load();
    const synopsis = usage.split('\n')[0].replace(/^Usage: /, '');
    assert.match(synopsis, new RegExp(`^executorch-pack ${c.name}( |$)`), `${c.name}: its usage opens with its synopsis`);
    assert.ok(usagePart.includes(`\n  ${synopsis}\n`), `${c.name}: synopsis in the usage`);
    assert.match(commandsPart[i], new RegExp(`^  ${c.name} +${c.summary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    assert.ok(!c.summary.includes('\n') && commandsPart[i].length <= 80, `${c.name}: a one-line summary that fits 80 columns`);
  }
});

test('each command prints its own usage with --help and through help', async () => {
  const runs = await all(COMMANDS.flatMap((c) => [() => runCli([c.name, '--help']), () => runCli(['help', c.name])]));
  for (const [i, c] of COMMANDS.entries()) {
    const { usage } = await c.load();
    for (const r of [runs[2 * i], runs[2 * i + 1]]) {
      assert.equal(r.status, 0, `${c.name}: ${r.stderr}`);
      assert.equal(r.stdout, `${usage}\n${CONTRACT}`, 'its usage, then the contract every command keeps');
    }
  }
});

test('every command file is registered, and every registered name is unique', () => {
  const files = readdirSync(join(NPM, 'src', 'cli', 'commands')).filter((f) => f !== 'index.mjs').map((f) => f.replace(/\.mjs$/, ''));
  assert.deepEqual([...files].sort(), COMMANDS.map((c) => c.name).sort());
  assert.equal(new Set(COMMANDS.map((c) => c.name)).size, COMMANDS.length);
});
