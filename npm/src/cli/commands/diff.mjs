// `executorch-pack diff`: registered from the command's own module
// (../diff.mjs).
import { DIFF_HELP, cmdDiff } from '../diff.mjs';

export const usage = DIFF_HELP;
export const run = (argv, cli) => cmdDiff(argv, cli);
