// The CLI's commands: one line each (name, one-line summary, handler
// module). A handler module exports `usage` (its --help text; the first line
// is its synopsis, "Usage: executorch-pack NAME ...") and `run(argv, cli)`
// -> exit status, where cli = { init, parseArgs, UsageError, help }. Modules
// are loaded only when used, so a command pays only for its own imports.
// Summaries fit an 80-column terminal (at most 62 characters). Adding a
// command: its file here (named as the command) and one line below; the usage that
// `executorch-pack --help` prints is generated from this list.
export const COMMANDS = [
  { name: 'inspect', summary: 'summary of a .pte/.ptd: methods, operators, sizes, byte map', load: () => import('./inspect.mjs') },
  { name: 'validate', summary: 'check files as the runtime would load them; exit 1 on errors', load: () => import('./validate.mjs') },
  { name: 'repack', summary: "rewrite a model's layout; move constants out, merge .ptd in", load: () => import('./repack.mjs') },
  { name: 'extract', summary: "write one delegate's blob (what its backend loads) to a file", load: () => import('./extract.mjs') },
  { name: 'delegate', summary: "decode one delegate's blob: graph, header, named keys", load: () => import('./delegate.mjs') },
  { name: 'diff', summary: 'compare two models or two .ptd by meaning; exit 1 if different', load: () => import('./diff.mjs') },
  { name: 'weights', summary: "write a program's .ptd from safetensors checkpoints", load: () => import('./weights.mjs') },
  { name: 'export-weights', summary: "write a program's named tensors to a .safetensors file", load: () => import('./export-weights.mjs') },
  { name: 'graph', summary: 'the plan graph of a .pte as JSON, DOT (Graphviz) or Mermaid', load: () => import('./graph.mjs') },
  { name: 'profile', summary: 'an ETDump run joined to its program: per-operator times', load: () => import('./profile.mjs') },
  { name: 'bundle', summary: 'write a .bpte: a .pte with test cases from safetensors', load: () => import('./bundle.mjs') },
  { name: 'unbundle', summary: "write a .bpte's program and test cases back out", load: () => import('./unbundle.mjs') },
];

export const commandNamed = (name) => COMMANDS.find((c) => c.name === name) ?? null;
