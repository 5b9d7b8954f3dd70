// Bytes that stay in JavaScript while the core works: each input array is
// registered under a number, and the core refers to it by (id, offset,
// size). The core asks for a digest only when dedup needs one, and for the
// bytes themselves only where they must sit inside the flatbuffer; outputs
// are assembled here by copying each byte once, straight from its source.
export class Sources {
  constructor(module, platform) {
    this.module = module;
    this.platform = platform;
    this.entries = new Map();
    this.nextId = 1;
  }

  // `entry`: { size, view(offset, size) -> Uint8Array | null, copyTo(dst, dstOffset, offset, size) }
  register(entry) {
    const id = this.nextId++;
    this.entries.set(id, entry);
    return id;
  }

  registerBytes(bytes) {
    return this.register({
      size: bytes.byteLength,
      bytes,
      view: (offset, size) => bytes.subarray(offset, offset + size),
      copyTo: (dst, at, offset, size) => dst.set(bytes.subarray(offset, offset + size), at),
    });
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
      digest: (id, offset, size) => this.digest(id, offset, size),
      read: (id, offset, size, ptr) => {
        const entry = this.get(id);
        // Read straight into the heap (re-read HEAPU8: memory may have grown).
        const heap = this.module.HEAPU8;
        entry.copyTo(heap, ptr, offset, size);
        return true;
      },
      serializeData: extra.serializeData || (() => '{"error":"no data serializer"}'),
    };
  }

  digest(id, offset, size) {
    const entry = this.get(id);
    const key = `${offset}:${size}`;
    entry.digests ??= new Map();
    let hex = entry.digests.get(key);
    if (hex === undefined) {
      const view = entry.view(offset, size);
      hex = view ? this.platform.sha256(view, this.module) : entry.sha256(offset, size);
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
  bytes(bytes) {
    const id = this.sources.registerBytes(bytes);
    this.ids.push(id);
    return { src: id, size: bytes.byteLength };
  }
  entry(entry) {
    const id = this.sources.register(entry);
    this.ids.push(id);
    return id;
  }
  close() {
    for (const id of this.ids) this.sources.release(id);
    this.ids = [];
  }
}

// Copies bytes into the wasm heap (used for the small heads of files, which
// the core parses) and frees them when the call is over.
export class HeapCopies {
  constructor(module) {
    this.module = module;
    this.pointers = [];
  }
  put(bytes) {
    const ptr = this.module._malloc(Math.max(1, bytes.byteLength)) >>> 0;
    if (ptr === 0) throw new Error('executorch-pack: out of wasm memory');
    this.module.HEAPU8.set(bytes, ptr);
    this.pointers.push(ptr);
    return { ptr, len: bytes.byteLength };
  }
  free() {
    for (const ptr of this.pointers) this.module._free(ptr);
    this.pointers = [];
  }
}
