// inspect(): a summary of a .pte or .ptd (src/read/inspect.h). Only the head
// of the file (header and flatbuffer) is read, plus peeks at padding;
// segment data stays where it is.
//
// options.dataFiles: the .ptd files a .pte is loaded with (an array or a
// record, as validate's ptds). The method allocator's figures then count
// what load_method adds for them (a merged data map when the .pte has a
// named_data table: src/read/method_allocator.h); only their identifiers
// are read, to refuse a file that is not a .ptd.
import { invalidArgument } from '../errors.mjs';
import { SPECS, checkOptions } from '../options.mjs';
import { encodeRequest, readInspectReply } from '../marshal.mjs';
import { closeAll, fileRequest, kindOf, openPath } from '../files-in.mjs';
import { dataFileEntries } from '../data-files.mjs';

export function inspect(core, data, options = {}) {
  const o = checkOptions(options, SPECS.inspect, 'options');
  if (o.dataFiles !== undefined && o.dataFiles !== null && typeof o.dataFiles !== 'object') {
    throw invalidArgument("options.dataFiles must be an array of .ptd files or a record {'model.ptd': file}");
  }
  const opened = [];
  try {
    const main = openPath(core, data, opened);
    const dataFiles = dataFileEntries(o.dataFiles, 'options.dataFiles');
    const ptds = [];
    for (const [name, file] of dataFiles) {
      const what = `options.dataFiles[${JSON.stringify(name)}]`;
      const source = openPath(core, file, opened);
      if (kindOf(source, what) !== 'ptd') throw invalidArgument(`${what} is not a .ptd file (its identifier is not FT01)`);
      ptds.push([name, source]);
    }
    const summary = inspectSource(core, main, { ...o, dataFiles: dataFiles.length });
    if (summary.methodAllocator) summary.methodAllocator.warnings = ptds.length > 1 ? duplicateKeyWarnings(core, ptds) : [];
    if (summary.format === 'pte') resolveDelegateKeys(core, summary, ptds);
    return summary;
  } finally {
    closeAll(opened);
  }
}

// An already opened input; options checked (dataFiles: a count here).
export function inspectSource(core, data, o) {
  return core.withScope((scope, heap) => {
    const kind = o.kind ?? kindOf(data, 'data');
    if (kind === 'ptd' && o.dataFiles) throw invalidArgument('options.dataFiles are the .ptd files a .pte is loaded with; this file is a .ptd');
    const request = encodeRequest({ ...fileRequest(core, data, kind, scope, heap, 'data', true), dataFiles: o.dataFiles ?? 0 });
    return core.run(() => core.module.inspect(kind, request, core.host()), (out) => readInspectReply(core.module, out));
  });
}

// Module merges the data maps of the .ptd files it is given and refuses a
// key found in two of them (validate: DUPLICATE_KEY_ACROSS_FILES), so the
// allocator figures describe a set that never loads: say so. Each file's
// keys come from its head (inspect's columns), hashed once: linear in keys.
function duplicateKeyWarnings(core, ptds) {
  const fileOf = new Map();  // key -> index in ptds
  const clashes = [];
  ptds.forEach(([name, source], f) => {
    const keys = inspectSource(core, source, { kind: 'ptd' }).namedData.key;
    for (const key of keys) {
      if (!fileOf.has(key)) fileOf.set(key, f);
      else clashes.push([key, fileOf.get(key), f]);
    }
  });
  if (!clashes.length) return [];
  const [key, a, b] = clashes[0];
  // Names as the data files have them (a file given twice: "model.ptd#2").
  return [`Module refuses to load these .ptd files together (DUPLICATE_KEY_ACROSS_FILES): key ${JSON.stringify(key)} is in both ` +
    `${JSON.stringify(ptds[a][0])} and ${JSON.stringify(ptds[b][0])}${clashes.length > 1 ? `, and ${clashes.length - 1} more key(s) repeat` : ''}; ` +
    'the method allocator figures are for a set that does not load'];
}

// Each delegate's named keys resolved to where they live: `in` is 'pte'
// (the core says so) or the name of the first given .ptd holding the key
// (null: in no given file, validate's DELEGATE_NAMED_KEY_MISSING), and
// `storedBytes` the entry's segment size there (null when unresolved). A
// .ptd's keys come from its head, read only when some key needs it.
function resolveDelegateKeys(core, summary, ptds) {
  const keys = summary.methods.flatMap((m) => m.delegates.flatMap((d) => d.payload?.namedKeys ?? []));
  if (!keys.length) return;
  const sizeIn = (named) => {
    const map = new Map();
    named.key.forEach((key, i) => { if (!map.has(key)) map.set(key, named.size[i]); });
    return map;
  };
  const pte = sizeIn(summary.namedData);
  let files = null;
  for (const k of keys) {
    if (k.in === 'pte') {
      k.storedBytes = pte.get(k.key) ?? null;
      continue;
    }
    files ??= ptds.map(([name, source]) => [name, sizeIn(inspectSource(core, source, { kind: 'ptd' }).namedData)]);
    const found = files.find(([, map]) => map.has(k.key));
    k.in = found ? found[0] : null;
    k.storedBytes = found ? found[1].get(k.key) : null;
  }
}
