// The validator's core work on a set of files, with no DOM: validate, an
// inspect per file (a .pte with its .ptd files) and the .pte's plan graph.
// core-worker.mjs runs it off the page's thread (core-client.mjs); the page
// runs it itself only when no worker can. Returns { report, summaries:
// {name: summary | {error: text}}, graph: {methods, ...} | {error: {code, message}} | null }.
//
// `files`: [{ name, source }] where source is what validate takes (bytes,
// an opened Blob or URL); `pteName`: the file checked as the program (null:
// a lone .ptd).
export async function checkFiles(et, files, pteName) {
  const byName = new Map(files.map((f) => [f.name, f.source]));
  const ptds = Object.fromEntries(files.filter((f) => f.name !== pteName).map((f) => [f.name, f.source]));
  const report = pteName !== null ? et.validate(byName.get(pteName), ptds) : et.validate(Object.values(ptds)[0]);
  const summaries = {};
  for (const f of files) {
    try { summaries[f.name] = inspectWithData(et, f.source, f.name === pteName ? ptds : {}); } catch (e) { summaries[f.name] = { error: errorText(e) }; }
  }
  const s = pteName !== null ? summaries[pteName] : null;
  let graph = null;
  if (s && !s.error) {
    try { graph = s.format !== 'bpte' || s.programSummary ? await graphOf(et, files, pteName, {}, s.format === 'bpte' ? s.program : null) : null; } catch (e) { graph = { error: errorOf(e) }; }
  }
  return { report, summaries, graph };
}

// et.graph of the file `pteName` of `files` with the others as its data;
// `options` beside `data` (delegates: 'expand'); `embedded`: where a .bpte
// holds its program ({offset, size} from inspect), null for a .pte. Null
// when the program's bytes cannot be had (a .bpte opened from a URL).
export async function graphOf(et, files, pteName, options = {}, embedded = null) {
  const byName = new Map(files.map((f) => [f.name, f.source]));
  const data = Object.fromEntries(files.filter((f) => f.name !== pteName).map((f) => [f.name, f.source]));
  const program = embedded ? await embeddedProgram(byName.get(pteName), embedded) : byName.get(pteName);
  return program ? et.graph(program, { ...options, data }) : null;
}

// An error as it crosses to the page: its code and message; as text
// (common.mjs errorText, which this module cannot import: no DOM here).
export const errorOf = (e) => ({ code: e?.code ?? null, message: String(e?.message ?? e) });
const errorText = (e) => (e?.code ? `${e.code}: ${e.message}` : String(e?.message ?? e));

// A .pte's summary with the .ptd files given beside it (its method
// allocator figures count what they cost); alone when one is no .ptd.
export function inspectWithData(et, source, ptds) {
  if (!Object.keys(ptds).length) return et.inspect(source);
  try {
    return et.inspect(source, { dataFiles: ptds });
  } catch (e) {
    if (e?.code !== 'INVALID_ARGUMENT') throw e;
    return et.inspect(source);
  }
}

// The .pte a .bpte embeds ({offset, size} from inspect), as bytes: a view
// of the bytes read, or that slice of the file (null: opened from a URL).
export async function embeddedProgram(source, at) {
  if (source instanceof Uint8Array) return source.subarray(at.offset, at.offset + at.size);
  const blob = source?.blob;
  return blob && typeof blob.slice === 'function' ? new Uint8Array(await blob.slice(at.offset, at.offset + at.size).arrayBuffer()) : null;
}
