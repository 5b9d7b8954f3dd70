// readETDump() and profile(): an ETDump (.etdp, the runtime's event tracer
// output) read as it is in the file, and joined to the .pte that ran
// (src/read/etdump_reader.h, src/ops/profile.h). The .etdp's flatbuffer is
// copied into the wasm heap once (its head is the whole flatbuffer); only
// the .pte's head is read. Integers above 2^53 (a DebugEvent's chain index
// 2^64-1, times on long-running devices) come back as BigInt.
import { invalidArgument } from '../errors.mjs';
import { check, checkOptions } from '../options.mjs';
import { encodeRequest, parseLossless, replyText } from '../marshal.mjs';
import { closeAll, fileRequest, kindOf, kindOfIdentifier, openPath } from '../files-in.mjs';
import { entryOf, readSync } from '../sources.mjs';
import { dataFileRecord } from '../data-files.mjs';
import { deserializeBundledProgram } from './bundled.mjs';

const SPEC = {
  // The .ptd files the program uses: accepted so a call can pass what
  // validate takes; the join needs only the program's instructions.
  data: check.any,
  // Each block's method in file order (null: infer it), or one name for all.
  methods(v, what) {
    if (typeof v === 'string') return v;
    if (!Array.isArray(v)) throw invalidArgument(`${what} must be a method name or an array of names and nulls`);
    return v.map((m, i) => check.stringOrNull(m, `${what}[${i}]`));
  },
};

// The kind a source's identifier names, or null (unreadable, or none: the
// core then says what is wrong with it).
function kindAt(source) {
  try {
    const entry = entryOf(source, 'etdump');
    return kindOfIdentifier(readSync(entry, 0, Math.min(entry.size, 12)));
  } catch {
    return null;
  }
}

// The earlier order (etdump, pte): the first is an ETDump and the second
// is not, or neither is and only the second is a program (so that a
// malformed ETDump is reported as one).
const etdumpFirst = (a, b) => (a === 'etdp' ? b !== 'etdp' : b !== 'etdp' && b === 'pte' && a !== 'pte');

function etdumpCall(core, op, request, host = core.host()) {
  return core.run(() => core.module.etdump(op, encodeRequest(request), host), (out) => parseLossless(replyText(out)));
}

// profile's events arrive a page (a JSON array of ~1 MiB: src/ops/profile.h
// kProfilePageBytes) at a time while the core joins, each parsed at once:
// the whole text is never held, in the heap or here (a million events were
// the core's model, ~200 MB of text in the heap, the same again as a JS
// string, and the objects: 1.2 GiB at the peak). Returns the host and
// fill(result), which puts each block's events in place.
// An event's strings are a few names repeated (OPERATOR_CALL, KernelCall,
// aten::add.out): each parse makes new copies, so one copy of each is kept
// (a million events: ~64 bytes an event less, ~60 MB), at most MAX_SHARED
// distinct ones (a file of a million distinct names keeps its own).
const SHARED_FIELDS = ['name', 'type', 'operator', 'delegate'];
const MAX_SHARED = 4096;

function eventPages(core) {
  const pages = new Map();  // block -> events
  const shared = new Map();  // text -> its one copy
  const share = (text) => {
    const kept = shared.get(text);
    if (kept !== undefined) return kept;
    if (shared.size < MAX_SHARED) shared.set(text, text);
    return text;
  };
  let failure = null;
  const host = core.host();
  host.profileEvents = (block, text) => {
    try {
      const list = parseLossless(text);
      const into = pages.get(block) ?? [];
      pages.set(block, into);
      for (let i = 0; i < list.length; ++i) {
        const event = list[i];
        for (const k of SHARED_FIELDS) if (typeof event[k] === 'string') event[k] = share(event[k]);
        into.push(event);
      }
    } catch (e) {
      failure ??= e;  // never thrown through the core's frames
    }
  };
  const fill = (result) => {
    if (failure) throw failure;
    for (const [block, events] of pages) result.blocks[block].events = events;
    return result;
  };
  return { host, fill };
}

// The file as flatc decodes it, schema defaults filled in:
// { version, run_data: [{ name, bundled_input_index, allocators?, events:
// [{ profile_event | allocation_event | debug_event }] }] } (snake_case,
// as upstream's schema names the fields; enums by name).
export function readETDump(core, etdump) {
  const opened = [];
  try {
    const source = openPath(core, etdump, opened);
    return core.withScope((scope, heap) =>
      etdumpCall(core, 'read', { etdp: fileRequest(core, source, 'etdp', scope, heap, 'etdump') }));
  } finally {
    closeAll(opened);
  }
}

// { blocks: [{ name, index, method, methodFrom, candidates, run,
// bundledInputIndex, events: [{ name, eventIndex, chain, instruction, type,
// operator | delegate, internal, parent?, startTime, endTime, duration,
// delegateDebugId... }] }], operators: [stats], delegates: [stats],
// warnings: [text] } with stats { name, methods, count, total, min, p10,
// p50, p90, mean, max } in the file's time unit.
//
// The arguments go in the CLI's order, profile(pte, etdump); the earlier
// order, profile(etdump, pte), keeps working: the ETDump is the argument
// whose identifier says so (ED00 at offset 8), whichever comes first.
export function profile(core, first, second, options = {}) {
  const o = checkOptions(options, SPEC, 'options');
  if (o.data !== undefined) dataFileRecord(o.data, 'options.data');  // checked, not read
  const opened = [];
  try {
    const a = openPath(core, first, opened);
    const b = openPath(core, second, opened);
    let [program, etdp] = etdumpFirst(kindAt(a), kindAt(b)) ? [b, a] : [a, b];
    // A .bpte ran as its embedded program (a bundled run's ETDump): that
    // program is joined, a view of the bundle's bytes.
    if (kindOf(program, 'pte') === 'bpte') program = deserializeBundledProgram(core, program).program;
    return core.withScope((scope, heap) => {
      const request = {
        etdp: fileRequest(core, etdp, 'etdp', scope, heap, 'etdump'),
        pte: fileRequest(core, program, kindOf(program, 'pte'), scope, heap, 'pte'),
        methods: Array.isArray(o.methods) ? o.methods : null,
        method: typeof o.methods === 'string' ? o.methods : null,
      };
      const { host, fill } = eventPages(core);
      return fill(etdumpCall(core, 'profile', request, host));
    });
  } finally {
    closeAll(opened);
  }
}
