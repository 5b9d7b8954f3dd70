// .pte/.ptd inputs as the core reads them: the head it parses copied into
// the heap, the rest referenced where it is; paths (Node) opened as file
// sources for the length of a call.
import { EtpackError, invalidArgument } from './errors.mjs';
import { entryOf, readSync } from './sources.mjs';
import { encodeRequest, replyJson } from './marshal.mjs';
import { DEFAULT_KIND, INSPECTED_KINDS, kindOfFamily, probeBytesOf } from './generated/file-kinds.mjs';

// The file kinds JS tells apart before asking the core come from the table
// generated from src/format/file_kinds.def (the C++ core's own): the
// identifier family at its offset (ETxx .pte, FTxx .ptd: another version
// still goes to its reader, which names it) and the probe size per kind.

// 'pte' | 'ptd' from a file's first bytes, or null.
export const kindOfIdentifier = kindOfFamily;

// How many first bytes of a file of `kind` the head-size probe takes.
export const probeBytes = probeBytesOf;

// The bytes of a .pte/.ptd the core parses, from its first bytes (a header
// probe, put in the heap) and its size; lenient: a malformed head is not an
// error.
export function headSizeIn(core, kind, probe, size, lenient) {
  const request = encodeRequest({ probe, size, lenient });
  return core.run(() => core.module.headSize(kind, request), (out) => replyJson(out).head_size);
}

// A .pte/.ptd input (bytes, file source, Blob, Artifact) -> its request:
// {head, file}. `lenient` (validate, inspect, repack): a malformed head is
// not an error here, the core reports on what it can read.
export function fileRequest(core, value, kind, scope, heap, what, lenient = false) {
  const entry = entryOf(value, what);
  // Asked again with more bytes while the answer is larger (a .pte without
  // eh00: its end is found from its bytes, in rounds growing fourfold).
  // (An opened Blob or URL starts from the head it holds.)
  const held = entry.headBytes ?? entry.head?.byteLength ?? 0;
  for (let have = Math.min(entry.size, Math.max(probeBytes(kind), held)); ;) {
    const probe = heap.putFrom(entry, 0, have);
    const headSize = headSizeIn(core, kind, probe, entry.size, lenient);
    if (headSize > have) have = headSize;
    else return { head: headSize === have ? probe : heap.putFrom(entry, 0, headSize), file: scope.entry(entry) };
  }
}

// The head size of a probe not yet in the heap (openBlob, openUrl).
export function headSizeOf(core, kind, probe, size) {
  return core.withScope((scope, heap) => headSizeIn(core, kind, heap.put(probe), size, true));
}

// The kind inspect and validate read a file as: its identifier's, when that
// kind is one they read (INSPECTED_KINDS: FTxx 'ptd', BPxx 'bpte', ...),
// else DEFAULT_KIND, 'pte' (the core then says what is wrong with it).
export function kindOf(value, what) {
  const entry = entryOf(value, what);
  const kind = kindOfIdentifier(readSync(entry, 0, Math.min(entry.size, 8)));
  return INSPECTED_KINDS.includes(kind) ? kind : DEFAULT_KIND;
}

// A file on disk as an input (Node): read in ranges when needed, never
// whole. Paths given to the operations are opened with this.
export function openFile(core, path) {
  if (!core.platform.openFile) throw new EtpackError('UNSUPPORTED', 'files by path are only available in Node; pass a Blob or bytes');
  if (typeof path !== 'string') throw invalidArgument('path must be a string');
  return core.platform.openFile(path);
}

// A path (Node) opened as a file source; `opened` collects what to close.
export function openPath(core, value, opened) {
  if (typeof value !== 'string') return value;
  const file = openFile(core, value);
  opened?.push(file);
  return file;
}

export function closeAll(opened) {
  for (const f of opened) f.close();
}
