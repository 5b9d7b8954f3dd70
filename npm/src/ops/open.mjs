// Inputs that need preparing before the synchronous core can read them: a
// Blob/File (openBlob) and a remote file (openUrl). Files by path (Node) are
// files-in.mjs openFile.
import { invalidArgument } from '../errors.mjs';
import { SPECS, checkOptions } from '../options.mjs';
import { checkSignal, throwIfAborted } from '../artifact.mjs';
import { blobEntry, SOURCE } from '../sources.mjs';
import { openUrlSource } from '../url-source.mjs';
import { headSizeOf, kindOfIdentifier, probeBytes } from '../files-in.mjs';
import { inspect } from './inspect.mjs';

// Prepares a Blob/File for the synchronous core: a .pte/.ptd gets its head
// read (so it can be deserialized or repacked), other data its SHA-256
// (so named-data dedup stays exact). Only those bytes are read now.
export async function openBlob(core, blob, options = {}) {
  if (!(typeof Blob !== 'undefined' && blob instanceof Blob)) throw invalidArgument('openBlob takes a Blob or File');
  options = checkOptions(options, SPECS.openBlob, 'options');
  const signal = checkSignal(options.signal);
  throwIfAborted(signal, 'openBlob');
  const entry = blobEntry(blob);
  // The first 64 KiB are kept whatever the file is (enough to say what is
  // wrong with one that is not a .pte/.ptd).
  const probe = await entry.read(0, Math.min(entry.size, 64 << 10));
  entry.head = probe;
  const kind = entry.size >= 8 ? kindOfIdentifier(probe) : null;
  if (kind) {
    const head = probe.subarray(0, Math.min(probe.byteLength, probeBytes(kind)));
    let headSize = core.guard(headSizeOf, null, [core, kind, head, entry.size]);
    // Asked again while the answer is larger than the bytes read (a .pte without eh00).
    while (headSize > entry.head.byteLength) {
      throwIfAborted(signal, 'openBlob');
      entry.head = await entry.read(0, headSize);
      headSize = core.guard(headSizeOf, null, [core, kind, entry.head, entry.size]);
    }
    throwIfAborted(signal, 'openBlob');
  }
  if (options?.digest ?? !kind) {
    const hasher = core.platform.createHasher(core.module);
    for (let at = 0; at < entry.size; at += 8 << 20) {
      throwIfAborted(signal, 'openBlob');  // before each 8 MiB read: a long digest stops soon after an abort
      hasher.update(await entry.read(at, Math.min(8 << 20, entry.size - at)));
    }
    entry.digests = new Map([[`0:${entry.size}`, hasher.digest()]]);
  }
  return { size: entry.size, blob, kind, [SOURCE]: () => entry };
}

// A remote file read by HTTP range requests (see url-source.mjs): its
// head, and the padding validate peeks at, are fetched now; segment data
// only when an output is written.
export function openUrl(core, url, options = {}) {
  checkOptions(options, SPECS.openUrl, 'options');
  return openUrlSource(url, options, {
    headSize: (kind, probe, size) => headSizeOf(core, kind, probe, size),
    paddingOf(source, kind) {
      try {
        const s = inspect(core, source, { kind });
        return [...s.segmentMap.filter((r) => r.kind === 'padding'), ...(s.paddingInSegments ?? [])]
          .map((r) => [Number(r.start), Number(r.end)]).sort((a, b) => a[0] - b[0]);
      } catch {
        return [];  // a head the core cannot lay out: validate reports it
      }
    },
    createHasher: () => core.platform.createHasher(core.module),
  });
}
