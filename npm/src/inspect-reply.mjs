// inspect()'s reply from the core (src/read/inspect.h): the long lists
// (namedData, segments, segmentMap) come as columns,
// {rows: n, columns: {key: [...], segment: {same: 0}, ...}} ({same: v}: v
// in every row), and a segment map
// range whose owners are its segment's names that segment's index instead
// of repeating them. Here they become the documented arrays of row objects.
// A .ptd can hold a million named-data entries: one JSON object per row
// would make the reply several times larger and slower to parse.
import { EtpackError } from './errors.mjs';
import { parseLossless } from './marshal.mjs';

const TABLES = ['namedData', 'segments', 'segmentMap'];
const DECODER = new TextDecoder();

// The summary from the core's Output. The text is decoded in place from
// the heap (tens of megabytes for a large file: out.json() would copy it
// twice more).
export function readInspectReply(module, out) {
  let text;
  try {
    const ptr = out.jsonPtr() >>> 0;
    text = DECODER.decode(module.HEAPU8.subarray(ptr, ptr + out.jsonSize()));
  } catch (e) {
    throw new EtpackError('INTERNAL', `the core's reply could not be read: ${e?.message ?? e}`, { cause: e });
  }
  return summaryFromReply(parseLossless(text));
}

export function summaryFromReply(reply) {
  for (const name of TABLES) {
    const table = reply[name];
    if (table !== null && typeof table === 'object' && !Array.isArray(table)) reply[name] = rowsOf(table);
  }
  const segments = reply.segments ?? [];
  for (const range of reply.segmentMap ?? []) {
    // Each range gets its own array: a caller may change one without
    // changing the segment's.
    if (typeof range.owners === 'number') range.owners = segments[range.owners].owners.slice();
  }
  return reply;
}

// Plain objects with our own fixed keys (no key comes from the file).
function rowsOf({ rows, columns }) {
  const names = Object.keys(columns);
  const lists = names.map((name) => (Array.isArray(columns[name]) ? columns[name] : null));
  const same = names.map((name) => columns[name]?.same);
  const out = new Array(Number(rows));
  for (let i = 0; i < out.length; ++i) {
    const row = {};
    for (let c = 0; c < names.length; ++c) row[names[c]] = lists[c] ? lists[c][i] : same[c];
    out[i] = row;
  }
  return out;
}
