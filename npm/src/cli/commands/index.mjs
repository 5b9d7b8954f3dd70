// The CLI's commands: one line each (name, one-line summary, handler
// module). A handler module exports `usage` (its --help text; the first line
// is its synopsis, "Usage: executorch-pack NAME ...") and `run(argv, cli)`
// -> exit status, where cli = { init, parseArgs, UsageError, help }. Modules
// are loaded only when used, so a command pays only for its own imports.
// `takes`: the kinds of file the command reads (a file of another known
// kind is refused as WRONG_FILE_KIND, naming the commands that read it).
// Summaries fit an 80-column terminal (at most 62 characters). Adding a
// command: its file here (named as the command) and one line below; the usage that
// `executorch-pack --help` prints is generated from this list.
export const COMMANDS = [
  { name: 'inspect', summary: 'summary of a .pte/.ptd: methods, operators, sizes, byte map', takes: ['pte', 'ptd', 'bpte'], load: () => import('./inspect.mjs') },
  { name: 'validate', summary: 'check files as the runtime would load them; exit 1 on errors', takes: ['pte', 'ptd', 'bpte'], load: () => import('./validate.mjs') },
  { name: 'repack', summary: "rewrite a model's layout; move constants out, merge .ptd in", takes: ['pte', 'ptd', 'safetensors'], load: () => import('./repack.mjs') },
  { name: 'extract', summary: "write one delegate's blob (what its backend loads) to a file", takes: ['pte'], load: () => import('./extract.mjs') },
  { name: 'delegate', summary: "decode one delegate's blob: graph, header, named keys", takes: ['pte', 'ptd'], load: () => import('./delegate.mjs') },
  { name: 'diff', summary: 'compare two models or two .ptd by meaning; exit 1 if different', takes: ['pte', 'ptd'], load: () => import('./diff.mjs') },
  { name: 'weights', summary: "write a program's .ptd from safetensors checkpoints", takes: ['pte', 'safetensors'], load: () => import('./weights.mjs') },
  { name: 'export-weights', summary: "write a program's named tensors to a .safetensors file", takes: ['pte', 'ptd'], load: () => import('./export-weights.mjs') },
  { name: 'graph', summary: 'the plan graph of a .pte as JSON, DOT (Graphviz) or Mermaid', takes: ['pte', 'ptd'], load: () => import('./graph.mjs') },
  { name: 'profile', summary: 'an ETDump run joined to its program: per-operator times', takes: ['pte', 'ptd', 'etdp'], load: () => import('./profile.mjs') },
  { name: 'bundle', summary: 'write a .bpte: a .pte with test cases from safetensors', takes: ['pte', 'safetensors'], load: () => import('./bundle.mjs') },
  { name: 'unbundle', summary: "write a .bpte's program and test cases back out", takes: ['bpte'], load: () => import('./unbundle.mjs') },
];

export const commandNamed = (name) => COMMANDS.find((c) => c.name === name) ?? null;
