// How a request names bytes: a registered source as {src, size}, plus what
// is cheaply known of the bytes (bindings/marshal.h reads it): the 32 bytes
// at each end as hex (the core's dedup fingerprint, so unequal data of equal
// size rarely needs hashing) and a digest computed earlier (openBlob, or a
// previous call). The bytes themselves stay where they are.
import { entryOf, readSync } from '../sources.mjs';

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

// A request object -> the JSON text a binding takes.
export const encodeRequest = (request) => JSON.stringify(request);
