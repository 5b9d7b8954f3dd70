// The files an operation writes, in the form the caller asked for
// ({ output: 'bytes' | 'blob' | 'artifact', onProgress }).
import { EtpackError, markCallerError } from './errors.mjs';
import { MAX_OUTPUT_BYTES, SPECS, checkOptions } from './options.mjs';
import { cords, plannedBytes } from './marshal.mjs';
import { checkSignal, throwIfAborted } from './artifact.mjs';

// Output options shared by every call that writes files.
export function outputOptions(options, what, spec = SPECS.output) {
  const o = checkOptions(options, spec, what);
  const callback = o.onProgress ?? null;
  // The caller's callback errors reach the caller as they are.
  const onProgress = callback && ((p) => {
    try {
      return callback(p);
    } catch (e) {
      throw markCallerError(e);
    }
  });
  // One abort convention (errors.mjs abortedError): an aborted signal is
  // ABORTED before anything is done; with output 'bytes' it is checked
  // again after each progress report (the only time it can change here).
  const signal = checkSignal(o.signal);
  throwIfAborted(signal, 'the call');
  return { output: o.output ?? 'bytes', onProgress, signal };
}

// The files of an Output in the form asked for. 'bytes': one contiguous
// Uint8Array each, every byte copied once (the core's bytes straight from
// the heap unless a progress callback, which may call into wasm, runs in
// between); onProgress counts over all files of the call.
export function deliver(core, out, { output, onProgress, signal = null }) {
  const planned = plannedBytes(out);
  if (planned > MAX_OUTPUT_BYTES) {
    throw new EtpackError('RESOURCE_LIMIT', `the planned output is ${planned} bytes, over the limit of 2^40 bytes (check the alignments)`);
  }
  const artifacts = cords(core.module, core.sources, out, output === 'bytes' && !onProgress);
  if (output === 'artifact') return artifacts;
  if (output === 'blob') return artifacts.map((a) => a.toBlob());
  const totalBytes = artifacts.reduce((sum, a) => sum + a.size, 0);
  let base = 0;
  return artifacts.map((a) => {
    const bytes = a.toBytes({
      onProgress: onProgress && ((p) => onProgress({ bytesWritten: base + p.bytesWritten, totalBytes })),
      signal,
    });
    base += a.size;
    return bytes;
  });
}
