// `executorch-pack export-weights`: registered from the command's own
// module (../weights.mjs).
import { WEIGHTS_HELP, cmdExportWeights } from '../weights.mjs';

export const usage = WEIGHTS_HELP['export-weights'];
export const run = (argv, cli) => cmdExportWeights(argv, cli);
