// validate(): the runtime's verdict on a .pte and the .ptd files it uses, or
// on a .ptd (src/read/validate.h): {ok, errors, warnings}, every finding
// coded with file, offset and path.
import { invalidArgument } from '../errors.mjs';
import { SPECS, checkOptions } from '../options.mjs';
import { encodeRequest, parseLossless, replyText } from '../marshal.mjs';
import { closeAll, fileRequest, kindOf, openPath } from '../files-in.mjs';
import { dataFileRecord } from '../data-files.mjs';

// options: { runtime: 'X.Y', backends: [id, ...], deprecatedConstantBuffer: bool,
// methodAllocator: { bytes, arch: '64-bit' | 'arm32', tempAllocator: bool } }
// (values checked in C++: src/bindings/request.cpp; keys here).
// ptds: an array of files or a record { name: file } (data-files.mjs).
export function validate(core, pte, ptds = {}, options = {}) {
  if (ptds === null || typeof ptds !== 'object') throw invalidArgument("ptds must be an array of .ptd files or a record {'model.ptd': file}");
  ptds = dataFileRecord(ptds, 'ptds');
  checkOptions(options, SPECS.validate, 'options');
  const { runtime = null, backends = null, deprecatedConstantBuffer = false } = options ?? {};
  const methodAllocator = methodAllocatorRequest(options?.methodAllocator);
  const opened = [];
  try {
    // fromEntries: a name like `__proto__` stays an ordinary key.
    const files = Object.fromEntries(Object.entries(ptds).map(([name, value]) => [name, openPath(core, value, opened)]));
    return validateSources(core, openPath(core, pte, opened), files, { runtime, backends, deprecatedConstantBuffer, methodAllocator });
  } finally {
    closeAll(opened);
  }
}

// The request's form of options.methodAllocator: a BigInt byte count as its
// decimal digits (JSON has no BigInt; the core reads either form).
function methodAllocatorRequest(pool) {
  if (pool === undefined || pool === null) return null;
  if (typeof pool !== 'object' || Array.isArray(pool)) throw invalidArgument('options.methodAllocator must be an object {bytes, arch, tempAllocator}');
  checkOptions(pool, { bytes: (v) => v, arch: (v) => v, tempAllocator: (v) => v }, 'options.methodAllocator');
  const { bytes } = pool;
  const count = typeof bytes === 'bigint' ? (bytes >= 0n ? bytes.toString() : null)
    : Number.isSafeInteger(bytes) && bytes >= 0 ? bytes : null;
  if (count === null) throw invalidArgument('options.methodAllocator.bytes must be a non-negative integer (bytes)');
  return { bytes: count, arch: pool.arch ?? null, tempAllocator: pool.tempAllocator ?? null };
}

function validateSources(core, pte, ptds, options) {
  const { sources } = core;
  return core.withScope((scope, heap) => {
    const request = { pte: fileRequest(core, pte, kindOf(pte, 'pte'), scope, heap, 'pte', true), options };
    // fromEntries: a .ptd named `__proto__` stays an ordinary key (an
    // assignment would set the prototype and drop the file).
    request.ptds = Object.fromEntries(Object.entries(ptds).map(([name, value]) => {
      const what = `ptds[${JSON.stringify(name)}]`;
      return [name, fileRequest(core, value, kindOf(value, what), scope, heap, what, true)];
    }));
    sources.peekMisses = [];
    try {
      return core.run(() => core.module.validate(encodeRequest(request), core.host()),
        (out) => uncheckedPadding(sources, parseLossless(replyText(out)), request));
    } finally {
      sources.peekMisses = null;
    }
  });
}

// Padding validate could not peek at (a remote file's padding past the
// prefetch budget, an opened Blob's past its head) is said, not passed
// over in silence: one warning per file.
function uncheckedPadding(sources, report, request) {
  const files = [['pte', request.pte.file.src], ...Object.entries(request.ptds).map(([name, r]) => [name, r.file.src])];
  for (const [name, id] of files) {
    const misses = sources.peekMisses.filter((m) => m.id === id);
    if (!misses.length) continue;
    const bytes = misses.reduce((sum, m) => sum + m.size, 0);
    report.warnings.push({
      code: 'PADDING_NOT_CHECKED',
      message: `${misses.length} padding range(s) (from ${bytes} bytes, first at offset ${misses[0].offset}) were not checked: ` +
        'their bytes were not fetched or cannot be read synchronously',
      file: name, offset: misses[0].offset, path: null,
    });
  }
  return report;
}
