// Bytes that stay where the caller has them while the core works. Each input
// is registered under a number, and the core refers to it by (id, offset,
// size). The core asks for a digest only when dedup needs one, and for the
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

// The reference the core reads for an entry: {src, size}, plus what is
// cheaply known of the bytes: the 32 bytes at each end (the core's dedup
// fingerprint, so unequal data of equal size rarely needs hashing) and a
// digest computed earlier (openBlob, or a previous call).
const EDGE = 32;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const hex = (bytes) => Array.from(bytes, (b) => HEX[b]).join('');

export function sourceRef(id, entry) {
  const ref = { src: id, size: entry.size };
  const edge = Math.min(entry.size, EDGE);
  if (edge > 0) {
    try {
      const head = readSync(entry, 0, edge);
      const tail = readSync(entry, entry.size - edge, edge);
      ref.head = hex(head);
      ref.tail = hex(tail);
    } catch {
      // Not readable synchronously (an unopened Blob): fingerprint by size.
    }
  }
  const digest = entry.digests?.get(`0:${entry.size}`);
  if (digest) ref.digest = digest;
  return ref;
}

export class Sources {
  constructor(module, platform) {
    this.module = module;
    this.platform = platform;
    this.entries = new Map();
    this.nextId = 1;
    // The first JS error raised inside a host callback during a core call:
    // callbacks must not throw through wasm frames, so they report failure
    // to the core and the glue rethrows this afterwards.
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

  // The host object the core calls back into during one call.
  host(extra = {}) {
    return {
      digest: (id, offset, size) => this.#guard(() => this.digest(id, offset, size), null),
      read: (id, offset, size, ptr) => this.#guard(() => {
        // Straight into the heap (re-read HEAPU8: memory may have grown): the
        // one copy of bytes the core must hold, e.g. inline in a flatbuffer.
        this.get(id).copyTo(this.module.HEAPU8, ptr, offset, size);
        return true;
      }, false),
      // Optional reads (fingerprint edges): failure is not an error.
      peek: (id, offset, size, ptr) => {
        try {
          this.get(id).copyTo(this.module.HEAPU8, ptr, offset, size);
          return true;
        } catch {
          this.peekMisses?.push({ id, offset, size });  // validate says what it could not check
          return false;
        }
      },
      serializeData: extra.serializeData || (() => '{"error":"no data serializer"}'),
    };
  }

  #guard(fn, failed) {
    try {
      return fn();
    } catch (e) {
      this.hostError ??= e;
      return failed;
    }
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

// Per-call registrations, released when the call ends.
export class Scope {
  constructor(sources) {
    this.sources = sources;
    this.ids = [];
  }
  // Any input (see entryOf) -> the reference the core reads: {src, size}.
  data(value, what) {
    return this.entry(entryOf(value, what));
  }
  entry(entry) {
    const id = this.sources.register(entry);
    this.ids.push(id);
    return sourceRef(id, entry);
  }
  close() {
    for (const id of this.ids) this.sources.release(id);
    this.ids = [];
  }
}

// Copies bytes into the wasm heap (used for the small heads of files, which
// the core parses) and frees them when the call is over. Program text is
// reported to onProgram(length), which lets the heap such a program needs
// outlive the call (instance.mjs).
const ENCODER = new TextEncoder();

export class HeapCopies {
  constructor(module, onProgram = null) {
    this.module = module;
    this.onProgram = onProgram;
    this.pointers = [];
  }
  put(bytes) {
    const ptr = this.module._malloc(Math.max(1, bytes.byteLength)) >>> 0;
    if (ptr === 0) throw new EtpackError('OUT_OF_MEMORY', `executorch-pack: no room for ${bytes.byteLength} bytes in the wasm heap`);
    this.module.HEAPU8.set(bytes, ptr);
    this.pointers.push(ptr);
    return { ptr, len: bytes.byteLength };
  }
  // Bytes [offset, offset + size) of an entry, read straight into the heap
  // (one copy: a head of a file on disk is never also held in a JS array).
  putFrom(entry, offset, size) {
    const view = entry.view(offset, size);
    if (view) return this.put(view);
    const ptr = this.module._malloc(Math.max(1, size)) >>> 0;
    if (ptr === 0) throw new EtpackError('OUT_OF_MEMORY', `executorch-pack: no room for ${size} bytes in the wasm heap`);
    this.pointers.push(ptr);
    entry.copyTo(this.module.HEAPU8, ptr, offset, size);  // nothing allocates in the heap while it reads
    return { ptr, len: size };
  }
  // A program in a binary form (see putText for JSON text).
  putProgram(bytes) {
    this.onProgram?.(bytes.byteLength);
    return this.put(bytes);
  }
  // Text as UTF-8 in the heap, encoded straight into it (TextEncoder's
  // encodeInto: no intermediate array; far faster than embind's conversion).
  // `text` may be an array of pieces, written one after the other (see
  // programPieces). Room for ASCII first; text with other characters is
  // encoded again into room for the worst case (3 bytes per UTF-16 unit).
  putText(text) {
    const pieces = typeof text === 'string' ? [text] : text;
    let length = 0;
    for (const piece of pieces) length += piece.length;
    this.onProgram?.(length);
    for (const room of [length, length * 3]) {
      const ptr = this.module._malloc(Math.max(1, room)) >>> 0;
      if (ptr === 0) throw new EtpackError('OUT_OF_MEMORY', `executorch-pack: no room for ${room} bytes of program text in the wasm heap`);
      this.pointers.push(ptr);
      let len = 0;
      let whole = true;
      for (const piece of pieces) {
        const { read, written } = ENCODER.encodeInto(piece, this.module.HEAPU8.subarray(ptr + len, ptr + room));
        len += written;
        if (read !== piece.length) {
          whole = false;
          break;
        }
      }
      if (whole) return { ptr, len };
    }
    throw new Error('executorch-pack: TextEncoder did not encode the whole text');
  }
  free() {
    for (const ptr of this.pointers) this.module._free(ptr);
    this.pointers = [];
  }
}
