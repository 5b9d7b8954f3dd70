// Artifacts as ranges of their inputs: slices of them, byte views as
// Artifacts, and one-range Artifacts as sources the serializers read
// straight from the file. Nothing here reads bytes.
import { Artifact } from './artifact.mjs';
import { SOURCE } from './sources.mjs';

// The first `size` bytes of an artifact as an artifact of references.
export function sliceArtifact(artifact, size) {
  if (size === artifact.size) return artifact;
  const pieces = [];
  let left = size;
  for (const p of artifact.pieces) {
    if (left === 0) break;
    const length = p.bytes ? p.bytes.byteLength : (p.zeros ?? p.length);
    const take = Math.min(length, left);
    if (p.bytes) pieces.push({ bytes: p.bytes.subarray(0, take) });
    else if (p.zeros !== undefined) pieces.push({ zeros: take });
    else pieces.push({ entry: p.entry, offset: p.offset, length: take });
    left -= take;
  }
  return new Artifact(pieces, size);
}

// A one-range Artifact as a source the serializers take by reference whose
// reads go straight to the underlying file (an Artifact passed as a source
// is read through a staging array per chunk: twice the allocations and
// copies, which cost more than the write itself for large weights).
export function asRangeSource(artifact) {
  const p = artifact.pieces.length === 1 ? artifact.pieces[0] : null;
  if (!p?.entry) return artifact;
  const { entry, offset: base, length } = p;
  const e = {
    size: length,
    view: (offset, n) => entry.view(base + offset, n),
    read: (offset, n) => entry.read(base + offset, n),
  };
  if (entry.copyTo) e.copyTo = (dst, at, offset, n) => entry.copyTo(dst, at, base + offset, n);
  if (entry.readInto) e.readInto = (dst, at, offset, n) => entry.readInto(dst, at, base + offset, n);
  // A file's path: writers then read it synchronously into a reused buffer.
  if (entry.path !== undefined) e.path = entry.path;
  if (entry.part) e.part = (offset, n) => entry.part(base + offset, n);
  return { size: length, [SOURCE]: () => e };
}

// Deserialized bytes are Artifacts (file inputs) or Uint8Array views (byte
// inputs): both as Artifacts (a view is referenced, not copied).
export function asArtifact(value) {
  if (value instanceof Uint8Array) return new Artifact([{ bytes: value }], value.byteLength);
  return value instanceof Artifact ? value : null;
}
