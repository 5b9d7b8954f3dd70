// The asynchronous operations (diff, ptdFromWeights, pteWithWeights) take a
// Blob/File wherever they take a .pte/.ptd: they open it themselves, as
// `await et.openBlob(blob)` would, before the synchronous core parses its
// head. Only the head is read (no digest: a model file is never a dedup
// candidate); segment bytes are read later, lazily, by the operation.
// Synchronous operations cannot wait for a Blob: their types take an
// OpenedBlob instead (index.d.ts `Source`).
import { isBlob } from './sources.mjs';
import { openBlob } from './ops/open.mjs';

const openModel = (core, value) => (isBlob(value) ? openBlob(core, value, { digest: false }) : value);

// A list or a name -> file record of model files (diff's dataA/dataB), with
// Blobs opened; other shapes pass unchanged (the operation checks them).
async function openModels(core, files) {
  if (Array.isArray(files)) return Promise.all(files.map((v) => openModel(core, v)));
  if (files !== null && typeof files === 'object' && Object.getPrototypeOf(files) === Object.prototype) {
    const names = Object.keys(files);
    if (!names.some((n) => isBlob(files[n]))) return files;
    const opened = await Promise.all(names.map((n) => openModel(core, files[n])));
    // Defined, not assigned: a `__proto__` file name stays an ordinary key.
    const out = {};
    names.forEach((n, i) => Object.defineProperty(out, n, { value: opened[i], enumerable: true, writable: true, configurable: true }));
    return out;
  }
  return files;
}

// ops: { diff, ptdFromWeights, pteWithWeights } as weights.mjs / diff.mjs make them.
export function openingModelBlobs(core, { diff, ptdFromWeights, pteWithWeights }) {
  return {
    async diff(a, b, options, ...rest) {
      const [x, y] = await Promise.all([openModel(core, a), openModel(core, b)]);
      if (options !== null && typeof options === 'object' && !Array.isArray(options) && (isBlobIn(options.dataA) || isBlobIn(options.dataB))) {
        options = { ...options };
        if (options.dataA !== undefined) options.dataA = await openModels(core, options.dataA);
        if (options.dataB !== undefined) options.dataB = await openModels(core, options.dataB);
      }
      return diff(x, y, options, ...rest);
    },
    async ptdFromWeights(pte, ...rest) {
      return ptdFromWeights(await openModel(core, pte), ...rest);
    },
    async pteWithWeights(pte, ...rest) {
      return pteWithWeights(await openModel(core, pte), ...rest);
    },
  };
}

function isBlobIn(files) {
  if (Array.isArray(files)) return files.some(isBlob);
  return files !== null && typeof files === 'object' && Object.values(files).some(isBlob);
}
