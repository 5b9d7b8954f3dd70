// HTTP byte ranges of one remote object, pinned to one version of it.
//
// The first request asks for the object's first bytes (`Range: bytes=0-N`):
// a 206 answer tells the size (Content-Range) and the version (ETag or
// Last-Modified), which every later request sends as `If-Range` and every
// later answer must repeat, so two versions are never mixed (SOURCE_CHANGED).
// A version pinned by the first answer must be repeated by every later one:
// an answer that drops the ETag or Last-Modified it had is SOURCE_CHANGED
// too (its bytes may be another version's). A server that ignores Range
// answers 200 with the whole body: it is read once, up to `maxBytes`.
// Every request has an idle timeout (`timeoutMs`, restarted when bytes
// arrive) and an overall deadline (`timeoutMs` plus the bytes asked for at
// `minBytesPerSecond`), so a server trickling a byte now and then is cut
// off too (TIMEOUT). Redirects are followed hop by hop so that the
// caller's headers are chosen per host (credentials never follow a redirect
// to another host unless the caller's policy says so). Errors name the URL
// without its query (signed URLs carry credentials there) and never quote a
// header value.
import { EtpackError, abortedError } from './errors.mjs';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 10;

// The URL as errors and logs show it: no user:password, no query, no fragment.
export function displayUrl(url) {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}${u.search ? '?…' : ''}`;
  } catch {
    return '(invalid URL)';
  }
}

// Headers for a request to `url`: a function (url) -> headers decides per
// host; a plain object is sent only to the origin the caller named (a
// redirect elsewhere drops it: it may hold a token).
export function headerPolicy(headers, origin) {
  if (typeof headers === 'function') return (url) => headers(url) ?? {};
  const fixed = headers ?? {};
  return (url) => (new URL(url).origin === origin ? fixed : {});
}

function httpError(status, display, what) {
  const e = new EtpackError('HTTP_ERROR', `${display}: the server answered HTTP ${status}${what ? ` ${what}` : ''}`);
  e.status = status;
  return e;
}

function parseContentRange(value) {
  const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec((value ?? '').trim());
  return m ? { start: Number(m[1]), end: Number(m[2]) + 1, total: m[3] === '*' ? null : Number(m[3]) } : null;
}

// Header values must be Latin-1 (fetch refuses others with a bare
// TypeError that looked like a network error): a coded error naming the
// header, never its value.
function checkHeaders(headers, display) {
  for (const [name, value] of Object.entries(headers)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new EtpackError('INVALID_ARGUMENT', `${display}: the request header name '${name.replace(/[^\x20-\x7e]/g, '?')}' is not a valid HTTP header name`);
    }
    if (/[^\x09\x20-\x7e\x80-\xff]/.test(String(value))) {
      throw new EtpackError('INVALID_ARGUMENT', `${display}: the value of request header ${name} is not a string of Latin-1 ` +
        'characters without line breaks (HTTP header values cannot carry other characters; encode it first)');
    }
  }
  return headers;
}

export class RangeReader {
  #fetch;
  #headersFor;
  #signal;
  #timeoutMs;
  #minRate;
  #maxBytes;

  constructor(url, {
    fetch: fetchFn, headers, signal, timeoutMs = 30_000, minBytesPerSecond = 64 << 10, maxBytes = 256 << 20,
  } = {}) {
    this.url = url;               // the object's URL once redirects are resolved
    this.display = displayUrl(url);
    this.size = null;
    this.etag = null;             // the pinned version
    this.lastModified = null;
    this.rangeSupported = null;
    this.bytesFetched = 0;        // body bytes received over every request
    this.requests = 0;
    const fetcher = fetchFn ?? globalThis.fetch;
    this.#fetch = (url, init) => fetcher(url, init);  // a plain call: browsers' fetch refuses another `this`
    this.#headersFor = headerPolicy(headers, new URL(url).origin);
    this.#signal = signal ?? null;
    this.#timeoutMs = timeoutMs;
    this.#minRate = minBytesPerSecond;
    this.#maxBytes = maxBytes;
  }

  // The first `want` bytes (fewer when the object is smaller), or the whole
  // object when the server ignores Range. Sets size, version, rangeSupported.
  async open(want) {
    const { response, read } = await this.#request(0, want, true, want);
    if (response.status === 200) {
      this.rangeSupported = false;
      this.#pin(response);
      const length = response.headers.get('content-length');
      if (length !== null && Number(length) > this.#maxBytes) {
        read.cancel();
        throw this.#tooLarge(Number(length));
      }
      read.expect(length === null ? this.#maxBytes : Number(length));  // the whole body: its own deadline
      const whole = await read.all(this.#maxBytes, length === null ? null : Number(length));
      this.size = whole.byteLength;
      return whole;
    }
    if (response.status === 416) {
      // Nothing at offset 0: an empty object (Content-Range: bytes */0).
      read.cancel();
      const total = /\/(\d+)$/.exec(response.headers.get('content-range') ?? '');
      if (!total || Number(total[1]) !== 0) throw httpError(416, this.display, 'to a request for its first bytes');
      this.rangeSupported = true;
      this.size = 0;
      this.#pin(response);
      return new Uint8Array(0);
    }
    this.rangeSupported = true;
    this.#pin(response);
    const range = parseContentRange(response.headers.get('content-range'));
    if (range) {
      if (range.start !== 0 || range.end > want || range.total === null || range.end > range.total) {
        read.cancel();
        throw this.#mismatch('Content-Range', 0, want);
      }
      this.size = range.total;
      return read.exactly(range.end);
    }
    // No readable Content-Range (a browser sees it only when the server
    // exposes it to CORS): the body's length bounds the object; a full
    // answer means the size must come from a HEAD request.
    const head = await read.all(want, null);
    if (head.byteLength < want) this.size = head.byteLength;
    else this.size = await this.#sizeByHead();
    return head;
  }

  // Bytes [start, end) of the pinned version.
  async range(start, end) {
    if (this.rangeSupported === false) throw new Error('executorch-pack: range() on a server without ranges');
    const { response, read } = await this.#request(start, end, false, end - start);
    if (response.status === 200) {
      read.cancel();
      throw this.#changed('answered with the whole object instead of the range asked for');
    }
    this.#checkVersion(response, read);
    const range = parseContentRange(response.headers.get('content-range'));
    if (range) {
      if (range.total !== null && range.total !== this.size) {
        read.cancel();
        throw this.#changed(`is now ${range.total} bytes (was ${this.size})`);
      }
      if (range.start !== start || range.end !== end) {
        read.cancel();
        throw this.#mismatch('Content-Range', start, end);
      }
    }
    const length = response.headers.get('content-length');
    if (length !== null && Number(length) !== end - start) {
      read.cancel();
      throw this.#mismatch('Content-Length', start, end);
    }
    return read.exactly(end - start);
  }

  #pin(response) {
    this.etag = response.headers.get('etag');
    this.lastModified = response.headers.get('last-modified');
  }

  // The pinned ETag and Last-Modified must come back unchanged: a missing
  // one is not a match (the bytes may be another version's).
  #checkVersion(response, read) {
    const etag = response.headers.get('etag');
    const modified = response.headers.get('last-modified');
    if ((this.etag && etag !== this.etag) || (this.lastModified && modified !== this.lastModified)) {
      read.cancel();
      const dropped = (this.etag && etag === null) || (this.lastModified && modified === null);
      throw this.#changed(dropped
        ? 'no longer sends the ETag or Last-Modified that pinned the version read first, so its bytes cannot be trusted to be that version\'s'
        : 'has a new version (its ETag or Last-Modified changed)');
    }
  }

  #changed(how) {
    return new EtpackError('SOURCE_CHANGED', `${this.display} changed while being read: the server ${how}; open it again`);
  }

  #mismatch(header, start, end) {
    return new EtpackError('HTTP_ERROR', `${this.display}: the server's ${header} does not match the bytes [${start}, ${end}) asked for`);
  }

  #tooLarge(size) {
    return new EtpackError('SOURCE_TOO_LARGE', `${this.display}: the server does not answer range requests, and the whole object ` +
      `(${size === null ? `more than ${this.#maxBytes}` : size} bytes) is larger than maxBytes (${this.#maxBytes}); raise maxBytes to read it whole`);
  }

  async #sizeByHead() {
    const { response, read } = await this.#send('HEAD', {}, 0);
    read.cancel();
    const length = response.headers.get('content-length');
    if (!response.ok || length === null) {
      throw new EtpackError('HTTP_ERROR', `${this.display}: the object's size is unknown (no readable Content-Range; ` +
        'a cross-origin server must expose Content-Range to scripts)');
    }
    return Number(length);
  }

  // A GET for [start, end): conditional on the pinned version after the
  // first request.
  async #request(start, end, first, bytes) {
    const extra = { Range: `bytes=${start}-${end - 1}` };
    if (!first) {
      const strong = this.etag && !this.etag.startsWith('W/') ? this.etag : null;
      if (strong ?? this.lastModified) extra['If-Range'] = strong ?? this.lastModified;
    }
    const sent = await this.#send('GET', extra, bytes);
    const { status } = sent.response;
    if (status !== 206 && status !== 200 && !(first && status === 416)) {
      sent.read.cancel();
      throw httpError(status, this.display, `to a request for bytes [${start}, ${end})`);
    }
    return sent;
  }

  // One request, following redirects hop by hop (headers chosen per hop).
  // Resolves to the response and a body reader under the same timeouts: an
  // idle timer restarted whenever bytes arrive (a large range on a slow link
  // is not cut off while it progresses), and an overall deadline for the
  // `bytes` expected (a server sending a byte every few seconds never lets
  // the idle timer fire).
  async #send(method, extra, bytes) {
    const controller = new AbortController();
    let timedOut = null;  // 'idle' | 'deadline'
    let timer = null;
    const limited = this.#timeoutMs > 0 && Number.isFinite(this.#timeoutMs);
    let deadlineMs = 0;
    let deadline = null;
    const expect = (n) => {
      clearTimeout(deadline);
      if (!limited) return;
      deadlineMs = this.#timeoutMs + Math.ceil((n * 1000) / this.#minRate);
      deadline = setTimeout(() => { timedOut = 'deadline'; controller.abort(); }, deadlineMs);
    };
    expect(bytes);
    const arm = () => {
      clearTimeout(timer);
      if (limited) timer = setTimeout(() => { timedOut = 'idle'; controller.abort(); }, this.#timeoutMs);
    };
    const onAbort = () => controller.abort();
    const outer = this.#signal;
    if (outer?.aborted) throw this.#aborted();
    outer?.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      clearTimeout(timer);
      clearTimeout(deadline);
      outer?.removeEventListener('abort', onAbort);
    };
    const failure = (e) => {
      done();
      if (e instanceof EtpackError) return e;
      if (timedOut === 'idle') return new EtpackError('TIMEOUT', `${this.display}: no answer within ${this.#timeoutMs} ms`);
      if (timedOut === 'deadline') {
        return new EtpackError('TIMEOUT', `${this.display}: the request for ${bytes} bytes did not complete within ${deadlineMs} ms ` +
          `(timeoutMs ${this.#timeoutMs} plus the bytes at ${this.#minRate} bytes/s)`);
      }
      if (outer?.aborted) return this.#aborted();
      return new EtpackError('NETWORK_ERROR', `${this.display}: the request failed (network error, or a cross-origin server that does ` +
        `not allow this page to read it (CORS))${e?.cause?.code ? ` [${e.cause.code}]` : ''}`);
    };
    arm();
    let url = this.url;
    let response;
    try {
      for (let hop = 0; ; ++hop) {
        // (fetch itself asks for `Accept-Encoding: identity` with a Range:
        // a compressed range would have a length nobody can check.)
        const headers = checkHeaders({ ...this.#headersFor(url), ...extra }, this.display);
        this.requests += 1;
        try {
          response = await this.#fetch(url, { method, headers, redirect: 'manual', signal: controller.signal });
        } catch (e) {
          // A kept-alive connection the server closed as it was reused: the
          // request never reached it; GET and HEAD are safe to send again.
          if (controller.signal.aborted || !/ECONNRESET|UND_ERR_SOCKET|EPIPE/.test(String(e?.cause?.code))) throw e;
          this.requests += 1;
          response = await this.#fetch(url, { method, headers, redirect: 'manual', signal: controller.signal });
        }
        if (response.type === 'opaqueredirect') {
          // Browsers hide manual redirects: let the browser follow (it drops
          // Authorization across origins itself).
          response = await this.#fetch(url, { method, headers, redirect: 'follow', signal: controller.signal });
          if (response.url) url = response.url;
          break;
        }
        if (!REDIRECTS.has(response.status)) break;
        const location = response.headers.get('location');
        await response.body?.cancel();
        if (!location) throw httpError(response.status, this.display, 'without a Location');
        if (hop >= MAX_REDIRECTS) throw new EtpackError('HTTP_ERROR', `${this.display}: more than ${MAX_REDIRECTS} redirects`);
        try {
          url = new URL(location, url).href;
        } catch {
          throw httpError(response.status, this.display, 'with a Location that is not a valid URL');
        }
        if (!/^https?:$/.test(new URL(url).protocol)) throw new EtpackError('HTTP_ERROR', `${this.display}: redirected to a non-HTTP URL`);
      }
      arm();
    } catch (e) {
      throw failure(e);
    }
    this.url = url;
    const reader = response.body ? response.body.getReader() : null;
    const self = this;
    async function* chunks() {
      try {
        for (;;) {
          const { value, done: end } = await reader.read();
          if (end) return;
          arm();
          self.bytesFetched += value.byteLength;
          yield value;
        }
      } catch (e) {
        throw failure(e);
      } finally {
        done();
      }
    }
    const read = {
      // A body larger than the request said (a server ignoring Range): the
      // deadline is restarted for `n` bytes.
      expect,
      cancel() {
        done();
        reader?.cancel().catch(() => {});
      },
      // Exactly n bytes into one array (the one copy of the bytes received).
      async exactly(n) {
        const out = new Uint8Array(n);
        let at = 0;
        if (reader) {
          for await (const chunk of chunks()) {
            if (at + chunk.byteLength > n) {
              read.cancel();
              throw new EtpackError('HTTP_ERROR', `${self.display}: the server sent more than the ${n} bytes asked for`);
            }
            out.set(chunk, at);
            at += chunk.byteLength;
          }
        } else done();
        if (at !== n) throw new EtpackError('HTTP_ERROR', `${self.display}: the server sent ${at} of the ${n} bytes asked for`);
        return out;
      },
      // The whole body, at most `cap` bytes (the chunks, then one copy into
      // a contiguous array).
      async all(cap, expected) {
        const parts = [];
        let total = 0;
        if (reader) {
          for await (const chunk of chunks()) {
            total += chunk.byteLength;
            if (total > cap) {
              read.cancel();
              throw self.#tooLarge(null);
            }
            parts.push(chunk);
          }
        } else done();
        if (expected !== null && total !== expected) {
          throw new EtpackError('HTTP_ERROR', `${self.display}: the body has ${total} bytes, Content-Length said ${expected}`);
        }
        const out = new Uint8Array(total);
        let at = 0;
        for (const p of parts) {
          out.set(p, at);
          at += p.byteLength;
        }
        return out;
      },
    };
    return { response, read };
  }

  #aborted() {
    return abortedError(this.#signal, `${this.display}: the request`);
  }
}
