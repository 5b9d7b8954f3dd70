// Bytes that stay where the caller has them while the core works. Each input
// is registered under a number, and the core refers to it by (id, offset,
// size) (the reference a request carries: marshal/refs.mjs). The core asks for a digest only when dedup needs one, and for the
// bytes themselves only where they must sit inside the flatbuffer or a file
// head must be parsed; outputs are assembled from the same entries.
//
// An entry is { size, view, copyTo, read, part? }:
//   view(offset, size)  -> a Uint8Array over the bytes without copying, or null;
//   copyTo(dst, at, offset, size)  synchronous copy into dst (may throw for
//                        sources that cannot be read synchronously: Blobs);
//   read(offset, size)  -> Promise<Uint8Array>, for any source;
//   part(offset, size)  -> a Blob of the range, for zero-copy Blob outputs.
import { EtpackError, invalidArgument } from './errors.mjs';
import { describe, isBytes, toBytes } from './bytes.mjs';

// Objects that carry bytes without being an ArrayBuffer(View) (file sources,
// opened Blobs, Artifacts) expose their entry under this symbol.
export const SOURCE = Symbol.for('executorch-pack.source');

export function bytesEntry(bytes) {
  return {
    size: bytes.byteLength,
    bytes,
    view: (offset, size) => bytes.subarray(offset, offset + size),
    copyTo: (dst, at, offset, size) => dst.set(bytes.subarray(offset, offset + size), at),
    read: async (offset, size) => bytes.subarray(offset, offset + size),
  };
}

export function isBlob(value) {
  return typeof Blob !== 'undefined' && value instanceof Blob;
}

// A Blob (or File) read lazily. `head` (the first bytes, when a .pte/.ptd was
// opened) and `digests` are filled in by openBlob() so that the synchronous
// core never waits for them.
export function blobEntry(blob) {
  const entry = {
    size: blob.size,
    blob,
    head: null,
    view: (offset, size) => (entry.head && offset + size <= entry.head.byteLength ? entry.head.subarray(offset, offset + size) : null),
    copyTo(dst, at, offset, size) {
      const v = entry.view(offset, size);
      if (!v) throw blobNotOpened(offset, size);
      dst.set(v, at);
    },
    read: async (offset, size) => new Uint8Array(await blob.slice(offset, offset + size).arrayBuffer()),
    part: (offset, size) => blob.slice(offset, offset + size),
  };
  return entry;
}

function blobNotOpened(offset, size) {
  return new EtpackError('BLOB_NOT_OPENED',
    `the bytes of a Blob at offset ${offset} (${size} bytes) are needed synchronously (a file head to parse, or a digest for ` +
    'deduplication); pass the Blob through `await et.openBlob(blob)` first');
}

// Any accepted input -> its entry. Byte arrays are referenced, never copied.
export function entryOf(value, what) {
  if (isBytes(value)) return bytesEntry(toBytes(value, what));
  if (value !== null && typeof value === 'object' && typeof value[SOURCE] === 'function') return value[SOURCE]();
  if (isBlob(value)) return blobEntry(value);
  throw invalidArgument(`${what} must be bytes (ArrayBuffer, Uint8Array, Buffer, ...), a Blob, a file source or an Artifact, got ${describe(value)}`);
}

export function isSource(value) {
  return isBytes(value) || isBlob(value) || (value !== null && typeof value === 'object' && typeof value[SOURCE] === 'function');
}

// Reads `size` bytes at `offset` of an entry synchronously into a new array
// (used for the small heads of files the core parses).
export function readSync(entry, offset, size) {
  const v = entry.view(offset, size);
  if (v) return v;
  const copy = new Uint8Array(size);
  entry.copyTo(copy, 0, offset, size);
  return copy;
}

// SHA-256 of an entry's range: over a view when there is one, else through a
// bounded buffer (transient copies, only to hash).
const HASH_WINDOW = 8 << 20;
export function sha256Of(entry, offset, size, hasher) {
  const view = entry.view(offset, size);
  if (view) {
    hasher.update(view);
  } else {
    const buffer = new Uint8Array(Math.min(size, HASH_WINDOW));
    for (let done = 0; done < size; done += buffer.byteLength) {
      const n = Math.min(buffer.byteLength, size - done);
      entry.copyTo(buffer, 0, offset + done, n);
      hasher.update(buffer.subarray(0, n));
    }
  }
  return hasher.digest();
}

export class Sources {
  constructor(module, platform) {
    this.module = module;
    this.platform = platform;
    this.entries = new Map();
    this.nextId = 1;
    // The first JS error raised inside a host callback during a core call
    // (marshal/host.mjs): callbacks must not throw through wasm frames, so
    // they report failure to the core and the glue rethrows this afterwards.
    this.hostError = null;
    // Optional reads that failed (unfetched remote bytes, a Blob past its
    // head), recorded while validate runs (an array then, else null): it
    // turns them into PADDING_NOT_CHECKED warnings.
    this.peekMisses = null;
  }

  register(entry) {
    const id = this.nextId++;
    this.entries.set(id, entry);
    return id;
  }

  release(id) {
    this.entries.delete(id);
  }

  get(id) {
    const entry = this.entries.get(id);
    if (!entry) throw new Error(`executorch-pack: unknown byte source ${id}`);
    return entry;
  }

  // Throws (and clears) the error a host callback met during the last call.
  takeHostError() {
    const e = this.hostError;
    this.hostError = null;
    if (e) throw e;
  }

  digest(id, offset, size) {
    const entry = this.get(id);
    const key = `${offset}:${size}`;
    entry.digests ??= new Map();
    let hex = entry.digests.get(key);
    if (hex === undefined) {
      hex = sha256Of(entry, offset, size, this.platform.createHasher(this.module));
      entry.digests.set(key, hex);
    }
    return hex;
  }
}
