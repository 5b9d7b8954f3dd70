// Hashing the byte ranges of input files (diff, the weights commands): each
// range asked of a file hashed once, the file read once, front to back.
import { EtpackError } from './errors.mjs';
import { throwIfAborted, untilAborted } from './artifact.mjs';

// diff's hashing: every byte range asked of an input file hashed once, the
// file read once, front to back. `jobs`: [{entry, artifact}] where artifact
// is a single range of `entry` (others are hashed alone, once per Artifact).
// The core plans it (src/ops/diff_ranges.h: ranges sharing a start share a
// running hash, copied at each end); `pairs` of entries of equal size are
// read in lockstep and compared as they pass, which answers `identical`
// without a second read. Returns { digestOf(artifact) -> hex, same: [bool
// per pair] }.
const PASS_CHUNK = 8 << 20;

export function singleRange(artifact) {
  if (artifact.pieces.length !== 1 || !artifact.pieces[0].entry) return null;
  const p = artifact.pieces[0];
  return { entry: p.entry, offset: p.offset, length: p.length };
}

// The pass over the inputs gives the event loop a turn at least every
// PACE_MS of work (a chunk is 8 MiB, a few ms to hash): an abort (`signal`)
// is honoured within about that, and timers and I/O keep running.
const PACE_MS = 20;
const turn = () => new Promise((resolve) => (globalThis.setImmediate ?? setTimeout)(resolve));
export function pacer(signal, what) {
  let last = 0;  // the first call gives a turn: the work before it was synchronous
  return async () => {
    throwIfAborted(signal, what);
    if (Date.now() - last < PACE_MS) return;
    await turn();
    last = Date.now();
    throwIfAborted(signal, what);
  };
}

export async function hashOnce(artifacts, pairs, planRanges, createHasher, { signal = null, what = 'the call' } = {}) {
  const pace = pacer(signal, what);
  const digests = new Map();  // artifact -> hex
  const byEntry = new Map();  // entry -> [artifact]
  for (const a of artifacts) {
    if (digests.has(a)) continue;
    const r = singleRange(a);
    if (!r) {
      digests.set(a, await hashArtifact(a, createHasher, pace));
      continue;
    }
    if (!byEntry.has(r.entry)) byEntry.set(r.entry, []);
    byEntry.get(r.entry).push(a);
    digests.set(a, null);
  }
  const runners = new Map();
  for (const [entry, list] of byEntry) {
    const ranges = list.map((a) => [a.pieces[0].offset, a.pieces[0].length]);
    const runner = new StreamRunner(planRanges(ranges, entry.size), createHasher);
    runners.set(entry, { runner, list });
  }
  const same = [];
  const done = new Set();
  for (const [ea, eb] of pairs) {
    if (ea.size !== eb.size) {
      same.push(false);
      continue;
    }
    let equal = true;
    const [ra, rb] = [runners.get(ea)?.runner, runners.get(eb)?.runner];
    for await (const [at, x, y] of lockstep(ea, eb, 0, ea.size, pace, { signal, what })) {
      // Compared and hashed SYNC_CHUNK at a time, a turn between (a chunk
      // read from a Blob or URL is PASS_CHUNK).
      for (let o = 0; o < x.byteLength; o += SYNC_CHUNK) {
        await pace();
        const [xs, ys] = [x.subarray(o, o + SYNC_CHUNK), y.subarray(o, o + SYNC_CHUNK)];
        if (equal && !bytesEqual(xs, ys)) equal = false;
        ra?.feed(at + o, xs);
        if (eb !== ea) rb?.feed(at + o, ys);
      }
    }
    done.add(ea).add(eb);
    same.push(equal);
  }
  for (const [entry, { runner }] of runners) {
    if (done.has(entry)) continue;
    // Only the spans some range covers are read.
    for (const [lo, hi] of runner.spans()) {
      for await (const [at, x] of lockstep(entry, entry, lo, hi, pace, { signal, what })) {
        for (let o = 0; o < x.byteLength; o += SYNC_CHUNK) {
          await pace();
          runner.feed(at + o, x.subarray(o, o + SYNC_CHUNK));
        }
      }
    }
  }
  for (const { runner, list } of runners.values()) {
    runner.finish();
    list.forEach((a, i) => digests.set(a, runner.digestOfRange(i)));
  }
  return { digestOf: (a) => digests.get(a), same };
}

async function readRange(entry, offset, length) {
  return entry.view(offset, length) ?? entry.read(offset, length);
}

// [offset, chunk of a, chunk of b] over [lo, hi) of two entries (one when
// a === b). Files with synchronous reads (Node) are read into two reused
// buffers: a fresh 8 MiB array per chunk cost more in page faults than the
// hashing (a chunk is used only until the next one is asked for). Other
// entries (URLs, Blobs) are read asynchronously, the next chunks' reads
// started before the current ones are handed out.
// Synchronous reads block the event loop while they last: they go
// SYNC_CHUNK at a time, with `pace` (see pacer) between them. An abort
// (`signal`) rejects at once, not when the reads in flight end.
const SYNC_CHUNK = 2 << 20;
async function* lockstep(a, b, lo, hi, pace = null, { signal = null, what = 'the call' } = {}) {
  if (a.path !== undefined && b.path !== undefined && a.copyTo && b.copyTo) {
    const x = new Uint8Array(Math.min(SYNC_CHUNK, hi - lo));
    const y = b === a ? x : new Uint8Array(x.byteLength);
    for (let at = lo; at < hi; at += SYNC_CHUNK) {
      const n = Math.min(SYNC_CHUNK, hi - at);
      a.copyTo(x, 0, at, n);
      if (pace) await pace();
      if (b !== a) b.copyTo(y, 0, at, n);
      yield [at, x.subarray(0, n), y.subarray(0, n)];
    }
    return;
  }
  const fetch = (at) => {
    const n = Math.min(PASS_CHUNK, hi - at);
    const x = readRange(a, at, n);
    return Promise.all([x, b === a ? x : readRange(b, at, n)]);
  };
  let next = lo < hi ? fetch(lo) : null;
  for (let at = lo; at < hi; at += PASS_CHUNK) {
    const [x, y] = await untilAborted(next, signal, what);  // an abort does not wait for the reads
    next = at + PASS_CHUNK < hi ? fetch(at + PASS_CHUNK) : null;
    yield [at, x, y];
  }
}

function bytesEqual(x, y) {
  if (x.byteLength !== y.byteLength) return false;
  // Node's Buffer compares with memcmp; reached through globalThis so that a
  // bundler (Parcel) sees no free `Buffer` to polyfill in browser builds.
  const NodeBuffer = globalThis.Buffer;
  if (NodeBuffer) return NodeBuffer.from(x.buffer, x.byteOffset, x.byteLength).equals(NodeBuffer.from(y.buffer, y.byteOffset, y.byteLength));
  for (let i = 0; i < x.byteLength; ++i) if (x[i] !== y[i]) return false;
  return true;
}

// Runs the core's plan ({count, range_of, streams: [[start, [[end,
// distinct], ...]], ...]}) over a file fed front to back.
class StreamRunner {
  constructor(plan, createHasher) {
    this.plan = plan;
    this.createHasher = createHasher;
    this.streams = plan.streams.map(([start, ends]) => ({ start, ends, k: 0, at: start, hasher: null }));
    this.digests = new Array(plan.count).fill(null);
    this.next = 0;
    this.active = [];
  }
  // The maximal spans [lo, hi) that streams cover, in file order.
  spans() {
    const out = [];
    for (const s of this.streams) {
      const hi = s.ends[s.ends.length - 1][0];
      if (out.length && s.start <= out[out.length - 1][1]) out[out.length - 1][1] = Math.max(out[out.length - 1][1], hi);
      else out.push([s.start, hi]);
    }
    return out;
  }
  feed(pos, chunk) {
    const end = pos + chunk.byteLength;
    while (this.next < this.streams.length && this.streams[this.next].start <= end) {
      const s = this.streams[this.next++];
      s.hasher = this.createHasher();
      this.active.push(s);
    }
    for (const s of this.active) {
      while (s.k < s.ends.length) {
        const [stop, d] = s.ends[s.k];
        const hi = Math.min(stop, end);
        if (hi > s.at) {
          s.hasher.update(chunk.subarray(s.at - pos, hi - pos));
          s.at = hi;
        }
        if (stop > end) break;
        // A copy of the running state unless this is the stream's last end.
        this.digests[d] = s.k === s.ends.length - 1 ? s.hasher.digest() : s.hasher.copy().digest();
        s.k += 1;
      }
    }
    this.active = this.active.filter((s) => s.k < s.ends.length);
  }
  // Ranges no feed reached can only be empty ones at the end of the file.
  finish() {
    while (this.next < this.streams.length) {
      const s = this.streams[this.next++];
      s.hasher = this.createHasher();
      this.active.push(s);
    }
    for (const s of this.active) {
      for (; s.k < s.ends.length; ++s.k) {
        const [stop, d] = s.ends[s.k];
        if (stop !== s.at) throw new EtpackError('INTERNAL', `diff: bytes [${s.at}, ${stop}) of an input were never read`);
        this.digests[d] = s.k === s.ends.length - 1 ? s.hasher.digest() : s.hasher.copy().digest();
      }
    }
    this.active = [];
  }
  digestOfRange(i) {
    return this.digests[this.plan.range_of[i]];
  }
}

// Streams an artifact through a hasher (chunks of at most 8 MiB: nothing is
// loaded whole).
export async function hashArtifact(artifact, createHasher, pace = null) {
  const hasher = createHasher();
  for await (const chunk of artifact.chunks()) {
    if (pace) await pace();
    hasher.update(chunk);
  }
  return hasher.digest();
}
