// "A model's data files" has one shape across the API (validate's ptds,
// repack's data and merge, diff's dataA/dataB, exportWeights' data): either
// an array of files, each named by its own path, URL or File name, or a
// record { name: file } that names them. Both are accepted everywhere; the
// array is what a list of files on a command line gives, the record is for
// bytes (which have no name) or to choose the names.
import { invalidArgument } from './errors.mjs';

const baseName = (text) => {
  const bare = String(text).replace(/[?#].*$/, '');
  return bare.slice(Math.max(bare.lastIndexOf('/'), bare.lastIndexOf('\\')) + 1);
};

// The name a file gives itself: a path (Node), a FileSource's path, an
// opened URL's or an opened File's name; null for bytes and other sources.
export function ownName(value) {
  if (typeof value === 'string') return baseName(value) || null;
  if (value === null || typeof value !== 'object') return null;
  const own = typeof value.path === 'string' ? value.path : typeof value.url === 'string' ? value.url
    : typeof value.blob?.name === 'string' ? value.blob.name : typeof value.name === 'string' ? value.name : null;
  return own ? baseName(own) || null : null;
}

// [[name, file], ...] of an array or a record (undefined/null: none).
// Array items without a name of their own are `${what}[i]`, or refused when
// `named` (repack: the name is the .ptd's tag); names met twice get `#2`,
// `#3`... Entries are defined, not assigned: `__proto__` stays a name.
export function dataFileEntries(files, what, { named = false } = {}) {
  if (files === undefined || files === null) return [];
  if (Array.isArray(files)) {
    const seen = new Set();
    return files.map((file, i) => {
      let name = ownName(file);
      if (name === null) {
        if (named) throw invalidArgument(`${what}[${i}] has no file name to take its tag from: give ${what} as a record, e.g. { 'model.ptd': bytes }`);
        name = `${what}[${i}]`;
      }
      const base = name;
      for (let n = 2; seen.has(name); ++n) name = `${base}#${n}`;
      seen.add(name);
      return [name, file];
    });
  }
  if (typeof files !== 'object') throw invalidArgument(`${what} must be an array of files or a record { name: file }`);
  return Object.entries(files);
}

// The same as a record (a null-prototype object: any name is an ordinary key).
export function dataFileRecord(files, what, options) {
  const record = Object.create(null);
  for (const [name, file] of dataFileEntries(files, what, options)) {
    Object.defineProperty(record, name, { value: file, enumerable: true, writable: true, configurable: true });
  }
  return record;
}
