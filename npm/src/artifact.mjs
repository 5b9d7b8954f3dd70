// An output file (.pte or .ptd) as the ordered list of its pieces: bytes the
// core wrote (header, flatbuffer; copied out of the wasm heap once, they are
// small), runs of zero padding, and ranges of the caller's own inputs
// (weights), which are referenced and copied only when the artifact is
// materialised: once into a contiguous array, never for a Blob or a stream.
import { EtpackError, abortedError, invalidArgument } from './errors.mjs';
import { SOURCE } from './sources.mjs';
import { SPECS, checkOptions } from './options.mjs';

const ZEROS = new Uint8Array(1 << 16);

// Filled in by the Node entry: writing to disk and Node streams.
export const platformHooks = { writeTo: null, nodeStream: null };
export const CHUNK = 8 << 20;  // bound on the bytes a stream holds at once

// An AbortSignal option, checked (an abort is ABORTED: errors.mjs abortedError).
export function checkSignal(signal) {
  if (signal === undefined || signal === null) return null;
  if (typeof signal !== 'object' || typeof signal.aborted !== 'boolean') throw invalidArgument('signal must be an AbortSignal');
  return signal;
}

export function throwIfAborted(signal, what) {
  if (signal?.aborted) throw abortedError(signal, what);
}

// `promise` (a read in flight), or ABORTED the moment `signal` aborts: an
// abort is honoured at once, not when the read ends (an 8 MiB read took
// 100-300 ms on a loaded machine). The abandoned read's outcome is dropped;
// it fills only a buffer nobody reads any more.
export function untilAborted(promise, signal, what) {
  if (!signal) return promise;
  promise.catch(() => {});
  if (signal.aborted) return Promise.reject(abortedError(signal, what));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortedError(signal, what));
    signal.addEventListener('abort', onAbort, { once: true });
    const done = () => signal.removeEventListener('abort', onAbort);
    promise.then((v) => { done(); resolve(v); }, (e) => { done(); reject(e); });
  });
}

function checkProgress(onProgress) {
  if (onProgress !== undefined && onProgress !== null && typeof onProgress !== 'function') {
    throw invalidArgument('onProgress must be a function');
  }
  return onProgress ?? null;
}

export class Artifact {
  // pieces: { bytes: Uint8Array } | { zeros: n } | { entry, offset, length }
  constructor(pieces, size) {
    this.pieces = pieces;
    this.size = size;
    Object.freeze(this);
  }

  // One contiguous Uint8Array: each byte copied exactly once, from where it
  // lives. Synchronous, so every input must be synchronously readable (bytes,
  // files in Node, opened Blobs' heads); use bytes() for Blob inputs.
  toBytes(options = {}) {
    checkOptions(options, SPECS.toBytes, 'options');
    const onProgress = checkProgress(options?.onProgress);
    // Synchronous: the signal can only have aborted before the call or
    // from inside onProgress; checked then.
    const signal = checkSignal(options?.signal);
    throwIfAborted(signal, 'copying the artifact');
    const result = this.#allocate();
    let at = 0;
    let reported = -1;
    const tell = (bytesWritten) => {
      reported = bytesWritten;
      onProgress({ bytesWritten, totalBytes: this.size });
      throwIfAborted(signal, 'copying the artifact');
    };
    // Copied CHUNK at a time so that progress comes as the bytes are copied
    // (a 1 GiB piece is 128 reports, not one at the end), each count once.
    for (const p of this.pieces) {
      const n = p.bytes ? p.bytes.byteLength : (p.zeros ?? p.length);
      for (let done = 0; done < n; done += CHUNK) {
        const k = Math.min(CHUNK, n - done);
        if (p.bytes) result.set(p.bytes.subarray(done, done + k), at);
        else if (p.entry) copyRange(p.entry, result, at, p.offset + done, k);
        at += k;  // zeros: already zero
        if (onProgress && at - reported >= CHUNK) tell(at);
      }
    }
    if (onProgress && reported !== this.size) tell(this.size);
    return result;
  }

  // The same, reading inputs asynchronously (works for any Blob input).
  async bytes(options = {}) {
    checkOptions(options, SPECS.toBytes, 'options');
    const onProgress = checkProgress(options?.onProgress);
    const signal = checkSignal(options?.signal);
    throwIfAborted(signal, 'reading the artifact');
    const result = this.#allocate();
    let at = 0;
    for await (const chunk of this.chunks({ signal: signal ?? undefined })) {
      result.set(chunk, at);  // the one copy (chunks() of bytes are views)
      at += chunk.byteLength;
      onProgress?.({ bytesWritten: at, totalBytes: this.size });
    }
    return result;
  }

  // A Blob from parts: no copy of weight data made here. Blob inputs become
  // slices of themselves; byte arrays are handed to the Blob constructor
  // (which keeps its own copy in browsers: unavoidable). Files in Node have
  // no synchronous Blob form: use writeTo() or stream().
  toBlob(options = {}) {
    checkOptions(options, SPECS.toBlob, 'options');
    if (typeof Blob === 'undefined') throw new EtpackError('UNSUPPORTED', 'Blob is not available here');
    const parts = [];
    for (const p of this.pieces) {
      if (p.bytes) parts.push(p.bytes);
      else if (p.zeros !== undefined) for (let left = p.zeros; left > 0; left -= ZEROS.byteLength) parts.push(ZEROS.subarray(0, Math.min(left, ZEROS.byteLength)));
      else if (p.entry.part) parts.push(p.entry.part(p.offset, p.length));
      else {
        const view = p.entry.view(p.offset, p.length);
        if (!view) throw new EtpackError('UNSUPPORTED', 'a file-backed artifact has no Blob form in Node; use writeTo(path) or stream()');
        parts.push(view);
      }
    }
    return new Blob(parts, { type: options?.type ?? 'application/octet-stream' });
  }

  // Async iterable of Uint8Array chunks in file order, each at most
  // `chunkSize` (default CHUNK) bytes, so that progress counted by chunk is
  // accurate. Byte-array pieces come out as views (no copy); file and Blob
  // ranges are read chunk by chunk.
  // An aborted `signal` ends the iteration with ABORTED (checked before
  // every chunk).
  async* chunks(options = {}) {
    checkOptions(options, SPECS.chunks, 'options');
    const size = options?.chunkSize ?? CHUNK;
    const signal = checkSignal(options?.signal);
    for (const p of this.#chunksOf(size)) {
      throwIfAborted(signal, 'reading the artifact');
      yield typeof p === 'function' ? await untilAborted(p(), signal, 'reading the artifact') : p;
    }
  }

  // `for await (const chunk of artifact)`: chunks() with the defaults.
  [Symbol.asyncIterator]() {
    return this.chunks();
  }

  // The chunks in order: views and zeros as they are, reads as functions
  // (so that chunks() can check its signal before each one starts).
  * #chunksOf(size) {
    const views = function* (view) {
      for (let at = 0; at < view.byteLength; at += size) yield view.subarray(at, Math.min(at + size, view.byteLength));
    };
    for (const p of this.pieces) {
      if (p.bytes) {
        yield* views(p.bytes);
      } else if (p.zeros !== undefined) {
        const step = Math.min(size, ZEROS.byteLength);
        for (let left = p.zeros; left > 0; left -= step) yield ZEROS.subarray(0, Math.min(left, step));
      } else {
        const view = p.entry.view(p.offset, p.length);
        if (view) {
          yield* views(view);
          continue;
        }
        for (let done = 0; done < p.length; done += size) {
          const at = p.offset + done;
          const n = Math.min(size, p.length - done);
          yield () => p.entry.read(at, n);
        }
      }
    }
  }

  // A web ReadableStream of the file (Node 20 and browsers). An aborted
  // `signal` errors the stream with ABORTED.
  stream(options = {}) {
    checkOptions(options, SPECS.stream, 'options');
    const onProgress = checkProgress(options?.onProgress);
    const signal = checkSignal(options?.signal);
    const iterator = this.chunks({ chunkSize: options?.chunkSize });
    let at = 0;
    const total = this.size;
    return new ReadableStream({
      start(controller) {
        signal?.addEventListener('abort', () => {
          controller.error(abortedError(signal, 'the artifact stream'));
          iterator.return();
        }, { once: true });
        if (signal?.aborted) controller.error(abortedError(signal, 'the artifact stream'));
      },
      async pull(controller) {
        throwIfAborted(signal, 'the artifact stream');
        const { value, done } = await iterator.next();
        if (done) {
          controller.close();
          return;
        }
        controller.enqueue(value);
        at += value.byteLength;
        onProgress?.({ bytesWritten: at, totalBytes: total });
      },
      cancel() {
        return iterator.return();
      },
    }, { highWaterMark: 1 });  // one chunk ahead: bounded memory
  }

  // Node: writes the file with bounded memory; resolves to the byte count.
  writeTo(path, options = {}) {
    if (!platformHooks.writeTo) return Promise.reject(new EtpackError('UNSUPPORTED', 'writeTo(path) is only available in Node; use toBlob() or stream()'));
    return platformHooks.writeTo(this, path, options);
  }

  // Node: a stream.Readable of the file.
  toNodeStream(options = {}) {
    if (!platformHooks.nodeStream) throw new EtpackError('UNSUPPORTED', 'toNodeStream() is only available in Node; use stream()');
    return platformHooks.nodeStream(this, options);
  }

  // An Artifact is itself an input: pass it to another call (repack,
  // validate, a NamedDataStore) without materialising it.
  [SOURCE]() {
    return artifactEntry(this);
  }

  #allocate() {
    if (this.size > Number.MAX_SAFE_INTEGER) throw new EtpackError('UNSUPPORTED', `artifact of ${this.size} bytes`);
    try {
      return new Uint8Array(this.size);
    } catch (e) {
      throw new EtpackError('OUT_OF_MEMORY',
        `cannot allocate a contiguous ${this.size}-byte array (${e.message}); write the artifact with writeTo() or stream() instead`);
    }
  }
}

function copyRange(entry, dst, at, offset, length) {
  const view = entry.view(offset, length);
  if (view) dst.set(view, at);
  else entry.copyTo(dst, at, offset, length);
}

// The pieces covering [offset, offset + length) of an artifact.
function* piecesIn(artifact, offset, length) {
  let start = 0;
  const end = offset + length;
  for (const p of artifact.pieces) {
    const n = p.bytes ? p.bytes.byteLength : (p.zeros ?? p.length);
    const lo = Math.max(start, offset);
    const hi = Math.min(start + n, end);
    if (lo < hi) yield { p, from: lo - start, n: hi - lo, at: lo - offset };
    start += n;
    if (start >= end) break;
  }
}

function artifactEntry(artifact) {
  const entry = {
    size: artifact.size,
    view(offset, length) {
      // A view only when the range lies inside one viewable piece.
      const [first, second] = [...piecesIn(artifact, offset, length)].slice(0, 2);
      if (!first || second || first.n !== length) return length === 0 ? new Uint8Array(0) : null;
      const { p, from } = first;
      if (p.bytes) return p.bytes.subarray(from, from + length);
      if (p.entry) return p.entry.view(p.offset + from, length);
      return null;
    },
    copyTo(dst, at, offset, length) {
      for (const { p, from, n, at: rel } of piecesIn(artifact, offset, length)) {
        if (p.bytes) dst.set(p.bytes.subarray(from, from + n), at + rel);
        else if (p.entry) copyRange(p.entry, dst, at + rel, p.offset + from, n);
        else dst.fill(0, at + rel, at + rel + n);
      }
    },
    async read(offset, length) {
      const out = new Uint8Array(length);
      for (const { p, from, n, at } of piecesIn(artifact, offset, length)) {
        if (p.bytes) out.set(p.bytes.subarray(from, from + n), at);
        else if (p.entry) out.set(await p.entry.read(p.offset + from, n), at);
      }
      return out;
    },
  };
  const parts = artifact.pieces.every((p) => !p.entry || p.entry.part);
  if (parts) {
    entry.part = (offset, length) => {
      const list = [];
      for (const { p, from, n } of piecesIn(artifact, offset, length)) {
        if (p.bytes) list.push(p.bytes.subarray(from, from + n));
        else if (p.entry) list.push(p.entry.part(p.offset + from, n));
        else list.push(new Uint8Array(n));
      }
      return new Blob(list);
    };
  }
  return entry;
}
