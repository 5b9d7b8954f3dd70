#!/usr/bin/env node
// executorch-pack CLI: a dispatcher over the command registry
// (src/cli/commands/index.mjs: one file per command). One contract for
// every command (src/cli/contract.mjs): exit 0 success; 1 an input is
// invalid or differs (validate found errors, diff found differences, a
// malformed file or one of the wrong kind, a refusal for the files'
// contents); 2 usage, I/O, network, or an output that may not be written;
// 128+N stopped by signal N. With --json every reply, errors included, is
// one JSON document on stdout with `ok`; every error names its file.
// The CLI itself is src/cli/main.mjs; the published package runs it bundled
// into one script with V8's code cache (scripts/build-cli.mjs, dist/cli/).
import { cli } from '../src/cli/main.mjs';

await cli(process.argv.slice(2));
