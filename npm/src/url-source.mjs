// A remote .pte/.ptd (or data) as an input, read by HTTP range requests.
//
// The core is synchronous and the network is not, so what a call reads
// synchronously is fetched when the source is opened: the head (header and
// flatbuffer: one request of `headBytes`, then exactly the rest the core's
// head size asks for) and the padding regions validate peeks at (within a
// budget; padding left out is reported by validate as not checked). Segment
// data is never fetched at open: outputs that contain it (repack, lazy
// deserialized segments) read it asynchronously when they are written, in
// large ranges, straight from the server. Small asynchronous reads go through
// a small LRU cache of aligned blocks, one request per run of missing blocks.
import { EtpackError, invalidArgument } from './errors.mjs';
import { check, checkOptions, integerIn } from './options.mjs';
import { SOURCE } from './sources.mjs';
import { RangeReader, displayUrl } from './range-reader.mjs';
import { kindOfFamily, probeBytesOf } from './generated/file-kinds.mjs';

const KiB = 1024;
const MiB = 1024 * KiB;
const EDGE = 32;              // the dedup fingerprint's bytes at each end (sources.mjs)
const PARALLEL = 4;           // padding ranges fetched at once
const HASH_CHUNK = 8 * MiB;

const DEFAULTS = {
  blockSize: 64 * KiB,        // cache block; reads this far apart are fetched together
  headBytes: 64 * KiB,        // the first request (header + flatbuffer of most files)
  cacheBlocks: 64,            // blocks kept for small asynchronous reads
  paddingBytes: 1 * MiB,      // padding fetched at open so validate can check it ...
  paddingRequests: 16,        // ... in at most this many requests
  maxBytes: 256 * MiB,        // whole-object cap when the server ignores Range
  maxHeadBytes: 256 * MiB,    // the head (header + flatbuffer) the core may ask for
  timeoutMs: 30_000,          // idle timeout of a request ...
  minBytesPerSecond: 64 * KiB,  // ... and its deadline: timeoutMs + its bytes at this rate
};

function sizeOption(options, name, { allowZero = false } = {}) {
  const v = options[name] ?? DEFAULTS[name];
  if (!Number.isSafeInteger(v) || v < (allowZero ? 0 : 1)) throw invalidArgument(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} integer`);
  return v;
}

// core: { headSize(kind, probe, size) -> bytes the core parses,
//         paddingOf(source, kind) -> [[start, end], ...] the layout's padding,
//         createHasher() }
export async function openUrlSource(url, options, core) {
  if (typeof url !== 'string' && !(url instanceof URL)) throw invalidArgument('openUrl takes a URL string');
  const href = checkUrl(url);
  const opts = options ?? {};
  if (opts.fetch !== undefined && typeof opts.fetch !== 'function') throw invalidArgument('fetch must be a function');
  if (typeof (opts.fetch ?? globalThis.fetch) !== 'function') throw new EtpackError('UNSUPPORTED', 'no fetch() here; pass options.fetch');
  const settings = {};
  for (const name of ['blockSize', 'headBytes', 'cacheBlocks', 'maxBytes', 'maxHeadBytes', 'minBytesPerSecond']) settings[name] = sizeOption(opts, name);
  for (const name of ['paddingBytes', 'paddingRequests', 'timeoutMs']) settings[name] = sizeOption(opts, name, { allowZero: true });
  const reader = new RangeReader(href, {
    fetch: opts.fetch, headers: opts.headers, signal: opts.signal, timeoutMs: settings.timeoutMs, maxBytes: settings.maxBytes,
    minBytesPerSecond: settings.minBytesPerSecond,
  });
  const source = new UrlSource(reader, settings);
  await source.open(core, { padding: opts.padding ?? true, digest: opts.digest ?? false });
  return source;
}

// The URL as an absolute http(s) href, or INVALID_ARGUMENT saying what is
// wrong with it (never quoting a query or credentials).
export function checkUrl(url) {
  const text = String(url);
  let u;
  try {
    u = new URL(text);
  } catch {
    const shown = text.replace(/[?#].*$/s, '').replace(/\/\/[^/@]*@/, '//…@').replace(/[^\x20-\x7e]/g, '?').slice(0, 200);
    throw invalidArgument(`not a valid URL: ${shown}${/[?#]/.test(text) ? '?…' : ''} (check the host: an IPv6 address goes in [brackets], ` +
      'with both; special characters must be percent-encoded)');
  }
  if (!/^https?:$/.test(u.protocol)) throw invalidArgument(`${displayUrl(u.href)}: only http(s) URLs can be opened`);
  if (u.username || u.password) {
    throw invalidArgument(`${displayUrl(u.href)}: the URL carries a user name or password (user:password@host), which ` +
      'fetch() refuses to send; pass the credentials as a header instead (e.g. Authorization)');
  }
  return u.href;
}

export class UrlSource {
  #reader;
  #settings;
  #pinned = [];            // [{start, end, bytes}] sorted: head, padding, edges (kept)
  #blocks = new Map();     // block index -> bytes, in LRU order
  #inflight = new Map();   // block index -> Promise of its fetch
  #entry;

  constructor(reader, settings) {
    this.#reader = reader;
    this.#settings = settings;
    this.url = reader.display;    // safe to print: no query, no credentials
    this.size = 0;
    this.kind = null;             // 'pte' | 'ptd' | null
    this.headSize = 0;
    this.uncheckedPadding = 0;    // padding bytes not fetched (validate says so)
    const self = this;
    this.#entry = {
      size: 0,
      url: this.url,
      view: (offset, size) => self.#view(offset, size),
      copyTo: (dst, at, offset, size) => self.#copyTo(dst, at, offset, size),
      read: (offset, size) => self.#read(offset, size),
    };
  }

  get rangeSupported() { return this.#reader.rangeSupported; }
  get bytesFetched() { return this.#reader.bytesFetched; }
  get requests() { return this.#reader.requests; }

  [SOURCE]() {
    return this.#entry;
  }

  // Nothing to release (no connection is held); for symmetry with FileSource.
  close() {
    this.#blocks.clear();
  }

  // Fetches ranges now (kept until the source is dropped), so a synchronous
  // call can read them: e.g. after a RANGE_NOT_FETCHED error's `ranges`.
  async prefetch(ranges) {
    const list = [];
    for (const r of ranges ?? []) {
      const start = Number(r.offset ?? r[0]);
      const end = r.size !== undefined ? start + Number(r.size) : Number(r[1]);
      if (!(Number.isSafeInteger(start) && Number.isSafeInteger(end) && start >= 0 && start <= end && end <= this.size)) {
        throw invalidArgument(`prefetch: range [${start}, ${end}) is not inside the ${this.size} bytes of ${this.url}`);
      }
      list.push([start, end]);
    }
    await this.#fetchPinned(coalesce(this.#missing(list), this.#settings.blockSize));
  }

  async open(core, { padding, digest }) {
    const s = this.#settings;
    const first = await this.#reader.open(Math.max(s.headBytes, s.blockSize));
    this.size = this.#reader.size;
    this.#entry.size = this.size;
    this.#pin(0, first);
    this.kind = first.byteLength >= 8 ? kindOfFamily(first) : null;
    if (!this.rangeSupported) {
      this.headSize = this.size;  // the whole object came: every read is served from it
    } else if (this.kind) {
      // A .pte is given all the first request brought (without eh00 its end
      // is found from its bytes); a .ptd its header.
      const probe = this.kind === 'pte' ? first : first.subarray(0, Math.min(first.byteLength, probeBytesOf('ptd')));
      let head = first;
      this.headSize = Math.min(this.size, core.headSize(this.kind, probe, this.size));
      // A .pte without eh00 may take rounds (each at most four times the
      // last): the core asks again while the bytes do not tell where its
      // flatbuffer ends.
      for (;;) {
        if (this.headSize > s.maxHeadBytes) {
          // Checked before anything is fetched or allocated: the head is
          // whatever the file's header (or, without one, its bytes) claims.
          throw new EtpackError('SOURCE_TOO_LARGE', `${this.url}: the head the core must parse (header and flatbuffer) is ` +
            `${this.headSize} bytes, more than maxHeadBytes (${s.maxHeadBytes}); raise maxHeadBytes to read it`);
        }
        if (this.headSize <= head.byteLength) break;
        // The rest of the head in one request; the head is then one array
        // (a copy of the bytes already held, which are smaller) so the core
        // gets it as a view.
        const rest = await this.#reader.range(head.byteLength, this.headSize);
        const grown = new Uint8Array(this.headSize);
        grown.set(head);
        grown.set(rest, head.byteLength);
        head = grown;
        this.#pinned = [];
        this.#pin(0, head);
        if (this.kind !== 'pte') break;
        this.headSize = Math.min(this.size, core.headSize(this.kind, head, this.size));
      }
      this.#entry.headBytes = head.byteLength;  // what the core is given first (api.mjs)
    }
    // The last bytes too (the whole file's fingerprint for dedup, which the
    // glue reads synchronously), alongside the padding.
    const tail = this.#missing([[this.size - Math.min(EDGE, this.size), this.size]]);
    await Promise.all([
      this.rangeSupported && this.kind && padding ? this.#prefetchPadding(core.paddingOf(this, this.kind)) : null,
      this.#fetchPinned(tail),
    ]);
    if (digest) {
      const hasher = core.createHasher();
      for (let at = 0; at < this.size; at += HASH_CHUNK) hasher.update(await this.#read(at, Math.min(HASH_CHUNK, this.size - at)));
      this.#entry.digests = new Map([[`0:${this.size}`, hasher.digest()]]);
    }
  }

  // Padding past the head, neighbours merged; fetched while within budget,
  // the rest counted as unchecked.
  async #prefetchPadding(regions) {
    const s = this.#settings;
    const wanted = coalesce(this.#missing(regions), s.blockSize);
    const take = [];
    let bytes = 0;
    for (const [start, end] of wanted) {
      if (take.length < s.paddingRequests && bytes + (end - start) <= s.paddingBytes) {
        take.push([start, end]);
        bytes += end - start;
      }
    }
    await this.#fetchPinned(take);
    for (const [start, end] of this.#missing(regions)) this.uncheckedPadding += end - start;
  }

  async #fetchPinned(ranges) {
    let next = 0;
    const got = new Array(ranges.length);
    await Promise.all(Array.from({ length: Math.min(PARALLEL, ranges.length) }, async () => {
      while (next < ranges.length) {
        const i = next++;
        got[i] = await this.#reader.range(ranges[i][0], ranges[i][1]);
      }
    }));
    ranges.forEach(([start], i) => this.#pin(start, got[i]));
  }

  #pin(start, bytes) {
    if (!bytes.byteLength) return;
    this.#pinned.push({ start, end: start + bytes.byteLength, bytes });
    this.#pinned.sort((a, b) => a.start - b.start);
  }

  // The parts of [start, end) ranges held by no pinned range.
  #missing(ranges) {
    const out = [];
    for (const [s0, e0] of ranges) {
      let start = s0;
      for (const p of this.#pinned) {
        if (p.end <= start || p.start >= e0) continue;
        if (p.start > start) out.push([start, p.start]);
        start = Math.max(start, p.end);
      }
      if (start < e0) out.push([start, e0]);
    }
    return out;
  }

  // The held bytes covering `offset` (a pinned range or a cached block).
  #piece(offset) {
    for (const p of this.#pinned) if (offset >= p.start && offset < p.end) return p;
    const bs = this.#settings.blockSize;
    const index = Math.floor(offset / bs);
    const block = this.#blocks.get(index);
    if (!block) return null;
    this.#blocks.delete(index);  // most recently used last
    this.#blocks.set(index, block);
    return { start: index * bs, end: index * bs + block.byteLength, bytes: block };
  }

  #view(offset, size) {
    if (size === 0) return new Uint8Array(0);
    const p = this.#piece(offset);
    if (!p || offset + size > p.end) return null;
    return p.bytes.subarray(offset - p.start, offset - p.start + size);
  }

  #copyTo(dst, at, offset, size) {
    for (let done = 0; done < size;) {
      const p = this.#piece(offset + done);
      if (!p) {
        const e = new EtpackError('RANGE_NOT_FETCHED', `bytes [${offset + done}, ${offset + size}) of ${this.url} are needed synchronously ` +
          'but were not fetched (a remote source holds its head and padding): for outputs, ask for output: \'artifact\' and ' +
          'write them with writeTo(), bytes() or stream(); otherwise await source.prefetch(error.ranges) and call again');
        e.ranges = [{ offset: offset + done, size: size - done }];
        Object.defineProperty(e, 'source', { value: this });  // for withFetchedRanges (not enumerable: not printed)
        if (misses) misses.push({ source: this, offset: offset + done, size: size - done });
        throw e;
      }
      const from = offset + done - p.start;
      const n = Math.min(size - done, p.end - (offset + done));
      dst.set(p.bytes.subarray(from, from + n), at + done);  // a copy the caller asked for (heap, output array)
      done += n;
    }
  }

  // Asynchronous reads: large ones (output streaming) go straight to the
  // server, exactly the range asked for; small ones through the block cache.
  async #read(offset, size) {
    const view = this.#view(offset, size);
    if (view) return view;
    const s = this.#settings;
    if (size >= s.blockSize * 4 || !this.rangeSupported) return this.#reader.range(offset, offset + size);
    const bs = s.blockSize;
    const first = Math.floor(offset / bs);
    const last = Math.floor((offset + size - 1) / bs);
    for (let b = first; b <= last; ++b) if (this.#inflight.has(b)) await this.#inflight.get(b).catch(() => {});
    let run = null;
    const runs = [];
    for (let b = first; b <= last; ++b) {
      const held = this.#blocks.has(b) || this.#missing([[b * bs, Math.min(this.size, (b + 1) * bs)]]).length === 0;
      if (held) run = null;
      else if (run) run[1] = b;
      else runs.push(run = [b, b]);
    }
    await Promise.all(runs.map(([b0, b1]) => {
      const promise = this.#reader.range(b0 * bs, Math.min(this.size, (b1 + 1) * bs)).then((bytes) => {
        for (let b = b0; b <= b1; ++b) this.#blocks.set(b, bytes.subarray((b - b0) * bs, (b - b0 + 1) * bs));  // views, no copy
        while (this.#blocks.size > Math.max(s.cacheBlocks, 4)) this.#blocks.delete(this.#blocks.keys().next().value);
      }).finally(() => {
        for (let b = b0; b <= b1; ++b) this.#inflight.delete(b);
      });
      for (let b = b0; b <= b1; ++b) this.#inflight.set(b, promise);
      return promise;
    }));
    const out = new Uint8Array(size);
    try {
      this.#copyTo(out, 0, offset, size);  // one copy out of the cache (the blocks may be evicted later)
    } catch {
      return this.#reader.range(offset, offset + size);  // evicted meanwhile by concurrent reads
    }
    return out;
  }
}

// Synchronous reads remote sources could not serve while withFetchedRanges
// runs its call (an array then, else null): failed reads, and failed
// optional ones (peeks) that the core then does without, e.g. the 32-byte
// ends of a range that dedup compares before hashing; without them the
// same bytes of two inputs would not be recognised as equal.
let misses = null;

// Runs a synchronous call on remote sources, fetching what it turns out to
// need beyond their heads (the ends or whole ranges dedup must compare when
// merging, padding past the prefetch): the ranges it missed are fetched and
// the call runs again, until it misses nothing, within `rounds` and
// `maxBytes`. A call that still fails throws; one that succeeded without
// some optional bytes (over the budget) returns what it made.
export async function withFetchedRanges(fn, options = {}) {
  if (typeof fn !== 'function') throw invalidArgument(`withFetchedRanges takes a function to run (and run again), got ${fn === null ? 'null' : typeof fn}`);
  const o = checkOptions(options, {
    rounds: (v, what) => integerIn(v, what, 0, 1024),
    maxBytes: check.byteCount,
  }, 'options');
  const { rounds = 16, maxBytes = 64 * MiB } = o;
  let fetched = 0;
  for (let round = 0; ; ++round) {
    let result;
    let error = null;
    const missed = [];
    misses = missed;
    try {
      result = fn();
    } catch (e) {
      error = e;
    } finally {
      misses = null;
    }
    if (error && error.code !== 'RANGE_NOT_FETCHED') throw error;
    const size = missed.reduce((sum, m) => sum + m.size, 0);
    if (!missed.length || round >= rounds || fetched + size > maxBytes) {
      if (error) throw error;
      return result;
    }
    fetched += size;
    for (const source of new Set(missed.map((m) => m.source))) {
      await source.prefetch(missed.filter((m) => m.source === source));
    }
  }
}

// Sorted ranges with neighbours closer than `gap` merged (one request
// instead of two costs at most `gap` extra bytes).
function coalesce(ranges, gap) {
  const sorted = ranges.filter(([s, e]) => e > s).sort((a, b) => a[0] - b[0]);
  const out = [];
  for (const [s, e] of sorted) {
    const last = out.at(-1);
    if (last && s - last[1] <= gap) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}
