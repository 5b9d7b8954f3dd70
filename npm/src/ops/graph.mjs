// graph(): the plan graph of a .pte (src/read/program_graph.h):
// per method, a node per instruction, nodes for inputs, outputs, constants
// and external tensors (with the .ptd that holds each), and the values that
// flow between them; as an object ({schema: 1, methods: [...]}), or as DOT
// or Mermaid text (format 'dot' / 'mermaid'), all made in the core. Only
// the heads of the files are read. `delegates: 'expand'` draws each
// delegate's payload nodes in place of its DelegateCall (payload kinds with
// a graph: XNNPACK, Vulkan, MPS, MLX, native).
import { check, checkOptions } from '../options.mjs';
import { encodeRequest } from '../marshal.mjs';
import { readGraphReply } from '../marshal/graph-reply.mjs';
import { closeAll, fileRequest, openPath } from '../files-in.mjs';
import { dataFileEntries } from '../data-files.mjs';

const SPEC = {
  // The .ptd files external tensors are resolved against: an array or a
  // record { name: file } (data-files.mjs); the name is what nodes show.
  data: check.any,
  method: check.string,
  format: check.oneOf(['json', 'dot', 'mermaid']),
  delegates: check.oneOf(['collapse', 'expand']),
};

export function graph(core, pte, options = {}) {
  return graphWith(core, pte, options, (request, format) => core.run(() => core.module.graph(request, core.host()),
    (out) => readGraphReply(core.module, out, format)));
}

// For the CLI: the JSON reply as the CLI prints it (its schema, command and
// ok, indented by the core as JSON.stringify does), streamed to
// write(chunk) from the wasm heap, never made into JS objects: chunks are
// heap views, valid only during the call. Other formats: their text.
export function graphTo(core, pte, options, write) {
  let failed = null;
  const sink = (chunk) => {
    try {
      write(chunk);
      return true;
    } catch (e) {
      failed = e;
      return false;
    }
  };
  graphWith(core, pte, options, (request) => core.run(() => core.module.graphTo(request, core.host(), sink), () => {}));
  if (failed) throw failed;
}

function graphWith(core, pte, options, call) {
  const o = checkOptions(options ?? {}, SPEC, 'options');
  const data = dataFileEntries(o.data, 'options.data');
  const opened = [];
  try {
    const ptes = openPath(core, pte, opened);
    const files = data.map(([name, file]) => [name, openPath(core, file, opened)]);
    return graphSources(core, ptes, files, o.method ?? null, o.format ?? 'json', o.delegates ?? 'collapse', call);
  } finally {
    closeAll(opened);
  }
}

function graphSources(core, pte, files, method, format, delegates, call) {
  return core.withScope((scope, heap) => {
    const request = { pte: fileRequest(core, pte, 'pte', scope, heap, 'pte'), method, format, delegates };
    // fromEntries: a .ptd named `__proto__` stays an ordinary key.
    request.ptds = Object.fromEntries(files.map(([name, file]) => {
      const what = `options.data[${JSON.stringify(name)}]`;
      return [name, fileRequest(core, file, 'ptd', scope, heap, what)];
    }));
    return call(encodeRequest(request), format);
  });
}
