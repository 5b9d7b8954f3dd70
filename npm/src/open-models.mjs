// The asynchronous operations (diff, ptdFromWeights, pteWithWeights) take a
// Blob/File wherever they take a .pte/.ptd: they open it themselves, as
// `await et.openBlob(blob)` would, before the synchronous core parses its
// head. Only the head is read (no digest: a model file is never a dedup
// candidate); segment bytes are read later, lazily, by the operation.
// Synchronous operations cannot wait for a Blob: their types take an
// OpenedBlob instead (index.d.ts `Source`).
import { isBlob } from './sources.mjs';
import { openBlob } from './ops/open.mjs';
import { abortedError } from './errors.mjs';
import { checkSignal, throwIfAborted } from './artifact.mjs';

const openModel = (core, value, signal = null) => (isBlob(value) ? openBlob(core, value, { digest: false, signal }) : value);

// A list or a name -> file record of model files (diff's dataA/dataB), with
// Blobs opened; other shapes pass unchanged (the operation checks them).
async function openModels(core, files, signal = null) {
  if (Array.isArray(files)) return Promise.all(files.map((v) => openModel(core, v, signal)));
  if (files !== null && typeof files === 'object' && Object.getPrototypeOf(files) === Object.prototype) {
    const names = Object.keys(files);
    if (!names.some((n) => isBlob(files[n]))) return files;
    const opened = await Promise.all(names.map((n) => openModel(core, files[n], signal)));
    // Defined, not assigned: a `__proto__` file name stays an ordinary key.
    const out = {};
    names.forEach((n, i) => Object.defineProperty(out, n, { value: opened[i], enumerable: true, writable: true, configurable: true }));
    return out;
  }
  return files;
}

// The `signal` option of the asynchronous operations, as everywhere
// (errors.mjs abortedError): an abort is EtpackError ABORTED, the signal's
// reason as `cause`. It is checked before the call and between its steps
// (Blobs opened, then the operation), and the promise rejects as soon as the
// signal aborts; a read already in flight then ends on its own, its result
// dropped. The option is taken out before the operation sees its options.
function withSignal(options, what, body) {
  if (options === null || typeof options !== 'object' || Array.isArray(options) || !('signal' in options)) return body(options);
  const { signal: given, ...rest } = options;
  const signal = checkSignal(given);
  if (!signal) return body(rest);
  throwIfAborted(signal, what);
  let onAbort;
  const aborted = new Promise((_, reject) => {
    onAbort = () => reject(abortedError(signal, what));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  const work = (async () => {
    const result = await body(rest, signal);
    throwIfAborted(signal, what);
    return result;
  })();
  work.catch(() => {});  // after an abort its own failure is nobody's: not an unhandled rejection
  aborted.catch(() => {});
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}

// ops: { diff, ptdFromWeights, pteWithWeights } as weights.mjs / diff.mjs make them.
export function openingModelBlobs(core, { diff, ptdFromWeights, pteWithWeights }) {
  return {
    async diff(a, b, options) {
      return withSignal(options, 'diff', async (opts, signal) => {
        const [x, y] = await Promise.all([openModel(core, a, signal), openModel(core, b, signal)]);
        if (opts !== null && typeof opts === 'object' && !Array.isArray(opts) && (isBlobIn(opts.dataA) || isBlobIn(opts.dataB))) {
          opts = { ...opts };
          if (opts.dataA !== undefined) opts.dataA = await openModels(core, opts.dataA, signal);
          if (opts.dataB !== undefined) opts.dataB = await openModels(core, opts.dataB, signal);
        }
        if (signal) throwIfAborted(signal, 'diff');
        return diff(x, y, opts, signal);
      });
    },
    async ptdFromWeights(pte, checkpoints, options, ...rest) {
      return withSignal(options, 'ptdFromWeights', async (opts, signal) => {
        const opened = await openModel(core, pte, signal);
        if (signal) throwIfAborted(signal, 'ptdFromWeights');
        return ptdFromWeights(opened, checkpoints, opts, ...rest);
      });
    },
    async pteWithWeights(pte, checkpoints, options, ...rest) {
      return withSignal(options, 'pteWithWeights', async (opts, signal) => {
        const opened = await openModel(core, pte, signal);
        if (signal) throwIfAborted(signal, 'pteWithWeights');
        return pteWithWeights(opened, checkpoints, opts, ...rest);
      });
    },
  };
}

function isBlobIn(files) {
  if (Array.isArray(files)) return files.some(isBlob);
  return files !== null && typeof files === 'object' && Object.values(files).some(isBlob);
}
