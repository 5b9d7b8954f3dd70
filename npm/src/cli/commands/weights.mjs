// `executorch-pack weights`: registered from the command's own module
// (../weights.mjs).
import { WEIGHTS_HELP, cmdWeights } from '../weights.mjs';

export const usage = WEIGHTS_HELP.weights;
export const run = (argv, cli) => cmdWeights(argv, cli);
