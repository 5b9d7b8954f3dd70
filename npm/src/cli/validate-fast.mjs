// `validate FILE...` without the library (issue 42, start-up): the files on
// disk validated by the validate-only module (dist/etpack-validate.wasm,
// src/bindings/validate_c_api.cpp: the same C++ as etpack.wasm's validate,
// a C ABI, no embind) through a small `et` that does what validate-run.mjs
// asks of the library's (openFile, withFetchedRanges, validate), and printed
// by the same formatting code as commands/validate.mjs.
//
// It takes only what it does exactly as the full path would: local files
// of FAST_MAX_BYTES or less in all, no options but --json and --format,
// every file opened and validated without an error. Anything else (URLs, --jobs, target options, --help, a
// usage mistake, a file that cannot be read or is of another kind, an error
// from the core, a read that fails) returns false before anything is
// printed, and the caller runs the full CLI, which says it as always.
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { parseArgs } from './args.mjs';
import { isUrl } from './inputs.mjs';
import { VALIDATE_OPTIONS, groupModels, runStatus, validateAll } from './validate-run.mjs';
import { FORMATS, formatResults } from './validate-formats.mjs';
import { quietOnClosedPipes, writeOut } from './files.mjs';
import { parseLossless } from '../marshal/reply-json.mjs';
import { DEFAULT_KIND, INSPECTED_KINDS, kindOfFamily, probeBytesOf } from '../generated/file-kinds.mjs';
import { VERSION } from '../version.mjs';

// Of validate's options, the fast path takes these.
const TAKEN = new Set(['json', 'format']);

// The validate-only module is compiled at -Oz (less code for Node to compile
// on its first call, cmake/wasm.cmake), and is slower per byte than the -O3
// etpack.wasm: whole process, metadata-heavy programs (bench/metadata.mjs's
// shape), this path against the full one: 0.78x at 0.9 MB, 0.86x at 1.9 MB,
// 0.94x at 2.8 MB, ~1.6x at 9.3 MB. Files above this size in all (stat,
// before the module is instantiated) go to the full path.
export const FAST_MAX_BYTES = 2 << 20;

// The total size of the files, or Infinity when one cannot be stat'ed
// (the full path says why).
function totalSize(files) {
  let total = 0;
  for (const file of files) {
    try {
      total += statSync(file, { throwIfNoEntry: false })?.size ?? 0;
    } catch {
      return Infinity;
    }
  }
  return total;
}

// The format and files of `validate ARGS` when the fast path takes them, else null.
export function fastPlan(argv) {
  if (argv[0] !== 'validate') return null;
  let parsed;
  try {
    parsed = parseArgs(argv.slice(1), VALIDATE_OPTIONS, 'validate');
  } catch {
    return null;  // a usage error: the full path says it
  }
  const { options, positional } = parsed;
  if (Object.keys(options).some((name) => !TAKEN.has(name) && options[name] !== undefined && options[name] !== false)) return null;
  const format = options.format ?? (options.json ? 'json' : 'text');
  if (!FORMATS.includes(format) || (options.json && format !== 'json')) return null;
  if (positional.length < 1 || positional.some(isUrl) || totalSize(positional) > FAST_MAX_BYTES) return null;
  return { format, files: positional };
}

// Why the fast path stops: never printed (the full path runs instead).
class Declined extends Error {}

const decline = () => {
  throw new Declined();
};

// Bytes [offset, offset + size) of an opened file into the heap at `ptr`:
// 1 when all were read, 0 when not (a short file, an I/O error).
function readInto(file, heap, ptr, offset, size) {
  if (!file) return 0;
  try {
    const view = heap.subarray(ptr, ptr + size);
    for (let done = 0; done < size;) {
      const n = readSync(file.fd, view, done, size - done, offset + done);
      if (n === 0) return 0;
      done += n;
    }
    return 1;
  } catch {
    return 0;
  }
}

// A standalone module's sbrk grows the memory by just what it asks for,
// 64 KiB at a time for a large file's decode (thousands of grows; the JS
// glue of etpack.wasm grows by a fifth instead): told of a growth, this
// grows it by a fifth of its size more (at most 96 MiB, emscripten's own
// steps), which later requests use without growing.
const PAGE = 65536;
function growAhead(memory) {
  const pages = memory.buffer.byteLength / PAGE;
  try {
    memory.grow(Math.min(Math.ceil(pages / 5), (96 << 20) / PAGE));
  } catch {
    // at the maximum: the module's own grow says so when it needs more
  }
}

// The module's imports: the host's reads of the files opened here, and
// stubs for what the runtime may ask (a call to one ends the fast path).
function imports(module, files, heap, memory) {
  const env = {
    etpack_host_read: (id, offset, size, dst) => readInto(files.get(id), heap(), dst >>> 0, offset, size),
    emscripten_notify_memory_growth: () => growAhead(memory()),
  };
  const out = {};
  for (const { module: name, name: field, kind } of WebAssembly.Module.imports(module)) {
    if (kind !== 'function') continue;
    out[name] ??= {};
    out[name][field] = (name === 'env' && env[field]) || decline;
  }
  return out;
}

// The `et` of validate-run.mjs over the validate-only module.
export function fastEt(module) {
  const files = new Map();
  let nextId = 1;
  let broken = false;
  let core = null;
  // Re-read after every call: memory may have grown.
  const heap = () => new Uint8Array(core.memory.buffer);
  core = new WebAssembly.Instance(module, imports(module, files, heap, () => core.memory)).exports;
  core._initialize?.();
  const reply = () => {
    const at = core.etpack_reply_ptr() >>> 0;
    return new TextDecoder().decode(heap().subarray(at, at + core.etpack_reply_size()));
  };
  const alloc = (size, pointers) => {
    const ptr = core.malloc(Math.max(1, size)) >>> 0;
    if (ptr === 0) decline();
    pointers.push(ptr);
    return ptr;
  };

  // files-in.mjs's fileRequest: the head in the heap (asked again with more
  // bytes while the core wants more); the file goes by its id.
  const fileRequest = (file, pointers) => {
    const first = new Uint8Array(Math.min(file.size, 8));
    if (readInto(file, first, 0, 0, first.length) !== 1) decline();
    const found = kindOfFamily(first);
    const kind = INSPECTED_KINDS.includes(found) ? found : DEFAULT_KIND;
    const kindText = new TextEncoder().encode(`${kind}\0`);
    const kindPtr = alloc(kindText.length, pointers);
    heap().set(kindText, kindPtr);
    const put = (size) => {
      const ptr = alloc(size, pointers);
      if (readInto(file, heap(), ptr, 0, size) !== 1) decline();
      return { ptr, len: size };
    };
    for (let have = Math.min(file.size, probeBytesOf(kind)); ;) {
      const probe = put(have);
      const headSize = core.etpack_head_size(kindPtr, probe.ptr, probe.len, file.size, 1);
      if (headSize < 0) decline();
      if (headSize > have) have = headSize;
      else return { head: headSize === have ? probe : put(headSize) };
    }
  };

  return {
    openFile(path) {
      const fd = openSync(path, 'r');  // a failure declines (validateModel makes it the model's error)
      const stat = fstatSync(fd);
      const file = { id: nextId++, path, size: stat.size, fd, close: () => closeSync(fd) };
      if (stat.isDirectory()) {
        closeSync(fd);
        decline();
      }
      files.set(file.id, file);
      return file;
    },
    withFetchedRanges: (fn) => fn(),
    // ops/validate.mjs's validate with default options.
    validate(pte, ptds) {
      // After a failed call (a trap, a stub called, a read that failed) the
      // instance is not used again: the fast path declines anyway.
      if (broken) decline();
      broken = true;
      const pointers = [];
      // The binary request of validate_c_api.cpp: five numbers a file, the
      // .ptd files' names one after the other (UTF-8: what JSON gives the
      // full path's request for names without a lone surrogate).
      const files = [['', pte], ...Object.entries(ptds)];
      if (files.some(([name]) => !name.isWellFormed())) decline();
      const names = new TextEncoder().encode(files.map(([name]) => name).join(''));
      const table = new Float64Array(files.length * 5);
      files.forEach(([name, file], i) => {
        const { head } = fileRequest(file, pointers);
        table.set([head.ptr, head.len, file.id, file.size, new TextEncoder().encode(name).length], i * 5);
      });
      const tableAt = alloc(table.byteLength, pointers);
      heap().set(new Uint8Array(table.buffer), tableAt);
      const namesAt = alloc(names.length, pointers);
      heap().set(names, namesAt);
      if (core.etpack_validate(tableAt, files.length, namesAt, names.length) !== 0) decline();
      const report = parseLossless(reply());
      for (const p of pointers) core.free(p);
      broken = false;
      return report;
    },
  };
}

// Runs `validate ARGS` on the fast path when it takes them: true when it
// did (output written, process.exitCode set), false when the caller must
// run the full CLI (nothing was written). `compile()`: a promise of the
// module (WebAssembly.compile of etpack-validate.wasm), asked for only once
// the arguments are taken.
export async function validateFast(argv, compile) {
  const plan = fastPlan(argv);
  if (!plan) return false;
  let results;
  try {
    const et = fastEt(await compile());
    const open = { headers: undefined, env: { HF_TOKEN: process.env.HF_TOKEN }, timeout: undefined };
    results = await validateAll(et, groupModels(plan.files), { open, target: {} }, 1);
  } catch {
    return false;
  }
  if (results.some((r) => r.error)) return false;
  const output = formatResults(plan.format, results, VERSION);
  quietOnClosedPipes();
  writeOut(output);
  process.exitCode = runStatus(results);
  return true;
}
