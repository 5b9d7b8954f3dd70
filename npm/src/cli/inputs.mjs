// CLI inputs: a path opens a file on disk, an http(s):// URL a remote source
// read by range requests. `--header 'Name: value'` goes to the URL's own
// origin only; HF_TOKEN goes only to the Hugging Face Hub's hosts (hf.co,
// huggingface.co and their subdomains, e.g. the cdn-lfs and xethub CDNs)
// over https, also after a redirect, and nowhere else. Header values never
// appear in messages.
import { EtpackError } from '../errors.mjs';
import { fmtBytes, printable } from './format.mjs';

// Errors of reaching a file rather than of its contents, and usage errors
// found here (exit status 2).
export const IO_CODES = ['USAGE', 'IO_ERROR', 'HTTP_ERROR', 'NETWORK_ERROR', 'TIMEOUT', 'ABORTED', 'SOURCE_CHANGED', 'SOURCE_TOO_LARGE'];

export const isUrl = (arg) => /^https?:\/\//i.test(arg);

// An input as text output names it: a URL without its query, fragment or
// user:password (a signed URL's query is a credential), a path as given.
export function shownName(arg) {
  if (!isUrl(arg)) return arg;
  const [base] = String(arg).split(/[?#]/, 1);
  const bare = base.replace(/^(https?:\/\/)[^/@]*@/i, '$1');
  return bare.length < String(arg).length ? `${bare}${/[?#]/.test(arg) ? '?…' : ''}` : bare;
}

// --timeout SECONDS -> timeoutMs for openUrl (idle timeout of each request;
// its overall deadline grows from it with the bytes asked for). 0: none.
export function timeoutMs(value) {
  if (value === undefined) return undefined;
  if (!/^\d{1,7}(\.\d{1,3})?$/.test(value)) {
    throw Object.assign(new EtpackError('USAGE', `--timeout must be a number of seconds (e.g. 30 or 2.5), got '${printable(value)}'`), { exitStatus: 2 });
  }
  return Math.round(Number(value) * 1000);
}
export function isHubHost(hostname) {
  const h = hostname.toLowerCase();
  return h === 'hf.co' || h === 'huggingface.co' || h.endsWith('.hf.co') || h.endsWith('.huggingface.co');
}

// `--header` arguments -> [[name, value]]; a malformed one is named by its
// position, never echoed (it may be a token).
export function parseHeaders(list = []) {
  return list.map((arg, i) => {
    const colon = arg.indexOf(':');
    const name = colon > 0 ? arg.slice(0, colon).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new EtpackError('USAGE', `--header #${i + 1} is not 'Name: value'`);
    }
    const value = arg.slice(colon + 1).trim();
    if (/[^\x09\x20-\x7e\x80-\xff]/.test(value)) {
      throw new EtpackError('USAGE', `--header #${i + 1} (${name}): its value is not Latin-1 text on one line (HTTP header values carry nothing else; encode it first)`);
    }
    return [name, value];
  });
}

// The headers for one request to `url` when the input named `inputUrl`.
export function hubAwareHeaders(inputUrl, headers, hfToken) {
  let origin = null;
  try {
    origin = new URL(inputUrl).origin;
  } catch {
    // not a URL: openUrl says what is wrong with it (INVALID_ARGUMENT)
  }
  return (url) => {
    const u = new URL(url);
    const out = {};
    if (hfToken && u.protocol === 'https:' && isHubHost(u.hostname)) out.Authorization = `Bearer ${hfToken}`;
    if (u.origin === origin) for (const [name, value] of headers) out[name] = value;
    return out;
  };
}

// Opens every input: [source]. `options`: { headers: ['Name: value'],
// env: process.env, timeoutMs, or timeout: the --timeout text }. A URL that
// cannot be opened as given (malformed, user:password@) is exit status 2.
// Every input a command opened, in order ({arg}): the dispatcher names the
// file an error is about from these (contract.mjs).
const opened = [];
const openedArgs = new Set();
export const openedInputs = () => opened;

export async function openInputs(et, args, options = {}) {
  for (const arg of args) {
    if (!openedArgs.has(arg)) opened.push({ arg });
    openedArgs.add(arg);
  }
  const headers = parseHeaders(options.headers);
  const timeout = options.timeoutMs ?? timeoutMs(options.timeout);
  const hfToken = options.env?.HF_TOKEN || null;
  const sources = [];
  for (const arg of args) {
    if (!isUrl(arg)) {
      sources.push(openFile(et, arg));
      continue;
    }
    try {
      sources.push(await et.openUrl(arg, { headers: hubAwareHeaders(arg, headers, hfToken), timeoutMs: timeout }));
    } catch (e) {
      if (e?.code === 'INVALID_ARGUMENT') e.exitStatus = 2;  // the argument, not the file's contents
      if (e && typeof e === 'object') e.file ??= shownName(arg);
      throw e;
    }
  }
  return sources;
}

function openFile(et, path) {
  try {
    return et.openFile(path);
  } catch (e) {
    if (e.code === 'IO_ERROR') e.message = e.message.replace(/^cannot open/, 'cannot read');
    e.file ??= path;
    throw e;
  }
}

// One stderr line per remote input: what was fetched (stdout stays the
// command's output).
// (process.stderr is read only when there is a line: making the stream
// costs a start-up, files.mjs quietOnClosedPipes.)
export function reportFetched(sources, stream = undefined) {
  for (const s of sources) {
    if (s?.bytesFetched === undefined) continue;
    stream ??= process.stderr;
    const how = s.rangeSupported ? `${s.requests} range request(s)` : 'one whole-file download (the server ignores Range)';
    stream.write(`fetched ${fmtBytes(s.bytesFetched)} (${s.bytesFetched} bytes) of ${printable(s.url)} (${fmtBytes(s.size)}) in ${how}\n`);
  }
}
