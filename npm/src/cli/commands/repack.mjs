// `executorch-pack repack`: registered from the command's own module
// (../repack.mjs, which holds its options and output safety).
import { REPACK_HELP, cmdRepack } from '../repack.mjs';

export const usage = REPACK_HELP;
export const run = (argv, { init, help }) => cmdRepack(argv, { init, help });
