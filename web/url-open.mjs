// "Open from URL" for the validator page: remote .pte/.ptd files opened by
// HTTP range requests (et.openUrl), so only their heads (and padding) are
// fetched. The host must allow cross-origin reads (CORS) and expose
// Content-Range; Hugging Face Hub "resolve" URLs do. A link can point at a
// check: validator.html?url=A&url=B (a .pte and its .ptd files).
import { fmt } from './common.mjs';

// Whitespace-separated URLs -> the URL list, or an error message.
export function parseUrls(text) {
  const urls = String(text).split(/\s+/).filter(Boolean);
  for (const u of urls) {
    let ok = false;
    try { ok = /^https?:$/.test(new URL(u).protocol); } catch { ok = false; }
    if (!ok) return { error: `Not an http(s) URL: ${u.slice(0, 200)}` };
  }
  return { urls };
}

// The file name a URL names (its last path segment, decoded).
export function nameOf(url) {
  const last = new URL(url).pathname.split('/').filter(Boolean).pop() ?? 'remote';
  try { return decodeURIComponent(last); } catch { return last; }
}

// Opens the URLs: file-like inputs for the page ({ name, size, source, url }).
export async function openUrls(et, urls, onStatus) {
  const inputs = [];
  const names = new Set();
  for (const url of urls) {
    onStatus?.(`Fetching the head of ${nameOf(url)}…`);
    const source = await et.openUrl(url);
    let name = nameOf(url);
    for (let n = 2; names.has(name); ++n) name = `${nameOf(url)}#${n}`;
    names.add(name);
    inputs.push({ name, size: source.size, source, url });
  }
  return inputs;
}

// What was fetched, for the status line: bytes of how many, per file;
// `again`: the bytes the core's worker read from the same URLs to check
// them (most from the browser's cache, which the page cannot tell apart).
export function fetchedNote(inputs, again = 0) {
  const remote = inputs.filter((f) => f.source?.bytesFetched !== undefined);
  if (!remote.length) return '';
  const fetched = remote.reduce((a, f) => a + f.source.bytesFetched, 0);
  const total = remote.reduce((a, f) => a + f.size, 0);
  const whole = remote.filter((f) => !f.source.rangeSupported).map((f) => f.name);
  const unchecked = remote.filter((f) => f.source.uncheckedPadding > 0).map((f) => f.name);
  return ` Fetched ${fmt(fetched)} (${fetched} bytes) of ${fmt(total)} from ${remote.length} URL(s)` +
    `${whole.length ? `; ${whole.join(', ')} read whole (the server ignores range requests)` : ''}` +
    `${unchecked.length ? `; padding of ${unchecked.join(', ')} only partly fetched (see PADDING_NOT_CHECKED)` : ''}.` +
    `${again ? ` The check, in a worker, read them again: ${fmt(again)} (${again} bytes), from the browser's cache where it allows.` : ''}`;
}

// Wires the form and the ?url= parameters to `run(inputs)`.
export function wireUrlForm({ form, input, et, run, status }) {
  const open = async (text) => {
    const { urls, error } = parseUrls(text);
    if (error) return status(error, true);
    if (!urls.length) return status('Enter the URL of a .pte (and of its .ptd files).', true);
    try {
      await run(await openUrls(await et, urls, status));
    } catch (e) {
      status(e?.code ? `${e.code}: ${e.message}` : String(e?.message ?? e), true);
    }
    return undefined;
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const url = new URL(location.href);
    url.searchParams.delete('url');
    for (const u of parseUrls(input.value).urls ?? []) url.searchParams.append('url', u);
    history.replaceState(null, '', url);
    open(input.value);
  });
  const fromQuery = new URL(location.href).searchParams.getAll('url');
  if (fromQuery.length) {
    input.value = fromQuery.join(' ');
    open(input.value);
  }
}
