// The pages' core work off the page's thread (core-client.mjs): a file with
// one instruction reading 20,000 values takes the core seconds to validate,
// inspect and lay out as a graph, and the page must keep answering
// meanwhile. Messages in: { id, op, files: [{ name, bytes | blob }], ... };
// out: { id, result } or { id, error: { code, message } }; a result goes
// packed as text (core-pack.mjs: the page unpacks it a chunk per task).
// Files come as bytes (read by the page), as the Blob itself (opened here
// by slices) or as a URL (opened here by range requests).
import init from './pkg/index.browser.mjs';
import { checkFiles, errorOf, graphOf } from './core-check.mjs';
import { packResult } from './core-pack.mjs';

const ready = init();
// URLs opened by the last check, kept for the Program view's later calls.
let urls = new Map();  // url -> Promise of its source
const openUrl = (et, url) => {
  if (!urls.has(url)) urls.set(url, et.openUrl(url));
  return urls.get(url);
};
// The files of a message as validate takes them.
const opened = (et, files) => Promise.all(files.map(async (f) => ({
  name: f.name, source: f.bytes ?? (f.url ? await openUrl(et, f.url) : await et.openBlob(f.blob, { digest: false })),
})));

const OPS = {
  // The validator's check (core-check.mjs), with the bytes read from URLs.
  check: async (et, { files, pteName }) => {
    urls = new Map();
    const sources = await opened(et, files);
    const result = await checkFiles(et, sources, pteName);
    const urlBytes = sources.reduce((n, f) => n + (f.source?.bytesFetched ?? 0), 0);
    return { ...result, urlBytes };
  },
  // The Program view's graph with every delegate expanded (program-expand.mjs).
  graph: async (et, { files, pteName, options, embedded }) => graphOf(et, await opened(et, files), pteName, options, embedded),
  // The packager's outputs: a file map per file and one validate of them all.
  outputs: async (et, { files }) => {
    const [pte, ...ptds] = await opened(et, files);
    const summaries = [pte, ...ptds].map((f) => { try { return et.inspect(f.source); } catch (e) { return { error: errorOf(e) }; } });
    let report;
    try { report = et.validate(pte.source, Object.fromEntries(ptds.map((f) => [f.name, f.source]))); } catch (e) { report = { error: errorOf(e) }; }
    return { summaries, report };
  },
};

self.onmessage = async ({ data }) => {
  try {
    const et = await ready;
    await et.ready();  // a core restarted after a failed call is usable again
    const { packed, transfer } = packResult(await OPS[data.op](et, data));
    self.postMessage({ id: data.id, result: packed }, transfer);
  } catch (e) {
    self.postMessage({ id: data.id, error: errorOf(e) });
  }
};
