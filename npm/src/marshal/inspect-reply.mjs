// inspect()'s reply from the core (src/read/inspect.h): the long lists
// (namedData, segments, segmentMap) come as columns,
// {rows: n, columns: {key: [...], segment: {same: 0}, ...}} ({same: v}: v
// in every row; names joined into texts beside the JSON, {names: index,
// lengths, counts?}: src/read/layout_json.h), and a segment map
// range whose owners are its segment's names that segment's index instead
// of repeating them. owners name a segment's first few named-data entries
// only and ownerCount counts them all (a segment a million
// entries share is not a million strings). Here segments and segmentMap become the documented
// arrays of row objects; namedData stays in columns, its public shape.
// A .ptd can hold a million named-data entries: one JSON object per row
// would make the reply several times larger and slower to parse.
import { EtpackError } from '../errors.mjs';
import { heapText } from './heap.mjs';
import { parseLossless } from './reply-json.mjs';

const TABLES = ['namedData', 'segments', 'segmentMap'];

// The summary from the core's Output: JSON text, and the joined names as
// texts of their own. Texts are decoded in place from the heap (tens of
// megabytes for a large file: out.json() would copy them twice more).
export function readInspectReply(module, out) {
  const decode = (ptr, size) => heapText(module, ptr, size);
  let text;
  const texts = [];
  try {
    text = decode(out.jsonPtr(), out.jsonSize());
    for (let i = 0; i < out.textCount(); ++i) texts.push(decode(out.textPtr(i), out.textSize(i)));
  } catch (e) {
    throw new EtpackError('INTERNAL', `the core's reply could not be read: ${e?.message ?? e}`, { cause: e });
  }
  return summaryFromReply(parseLossless(text), texts);
}

export function summaryFromReply(reply, texts) {
  for (const name of TABLES) {
    const table = reply[name];
    if (table !== null && typeof table === 'object' && !Array.isArray(table)) {
      reply[name] = name === 'namedData' ? namedDataColumns(table, texts) : rowsOf(table, texts);
    }
  }
  const segments = reply.segments ?? [];
  for (const range of reply.segmentMap ?? []) {
    // Each range gets its own array: a caller may change one without
    // changing the segment's.
    if (typeof range.owners === 'number') range.owners = segments[range.owners].owners.slice();
  }
  return reply;
}

// A joined column as its values: slices of its text, names[index]
// (`lengths` in UTF-16 code units, -1 for null), in lists of `counts` when
// it has them.
function splitJoined({ names: index, lengths, counts }, texts) {
  const text = texts[index];
  const names = new Array(lengths.length);
  let at = 0;
  for (let i = 0; i < names.length; ++i) {
    const n = lengths[i];
    if (n < 0) {
      names[i] = null;
    } else {
      names[i] = text.slice(at, at + n);
      at += n;
    }
  }
  if (!counts) return names;
  if (counts.length === 1) return [names];
  const out = new Array(counts.length);
  for (let r = 0, next = 0; r < out.length; next += counts[r], ++r) out[r] = names.slice(next, next + counts[r]);
  return out;
}

// Rows of the documented shapes (src/read/inspect.h) made by object
// literals: for a million rows several times faster than setting the keys
// one by one. Other columns take the general path.
const ROW_MAKERS = new Map([
  ['key,segment,size', (c, i) => ({ key: c[0][i], segment: c[1][i], size: c[2][i] })],
  ['index,offset,size,kind,owners,ownerCount', (c, i) => ({
    index: c[0][i], offset: c[1][i], size: c[2][i], kind: c[3][i], owners: c[4][i], ownerCount: c[5][i],
  })],
  ['start,end,size,kind,segment,owners,ownerCount,clipped', (c, i) => ({
    start: c[0][i], end: c[1][i], size: c[2][i], kind: c[3][i], segment: c[4][i], owners: c[5][i], ownerCount: c[6][i], clipped: c[7][i],
  })],
]);

// namedData stays in columns: {count, key: [...], segment: [...],
// size: [...]} and, for a .ptd, layout: [index | null] into layouts:
// [{dtype, shape, dimOrder}]. A million entries are a few arrays, not a
// million objects with arrays of their own.
function namedDataColumns({ rows, columns, ...extras }, texts) {
  const n = Number(rows);
  const out = { count: n };
  for (const [name, column] of Object.entries(columns)) {
    if (typeof column?.names === 'number') out[name] = splitJoined(column, texts);
    else out[name] = Array.isArray(column) ? column : new Array(n).fill(column?.same);
  }
  return Object.assign(out, extras);
}

// Plain objects with our own fixed keys (no key comes from the file).
function rowsOf({ rows, columns }, texts) {
  const names = Object.keys(columns);
  const n = Number(rows);
  // Every column as an array of n values ({same: v} filled with v).
  const lists = names.map((name) => {
    const column = columns[name];
    if (typeof column?.names === 'number') return splitJoined(column, texts);
    return Array.isArray(column) ? column : new Array(n).fill(column?.same);
  });
  const make = ROW_MAKERS.get(names.join(','));
  const out = new Array(n);
  if (make) {
    for (let i = 0; i < n; ++i) out[i] = make(lists, i);
    return out;
  }
  for (let i = 0; i < n; ++i) {
    const row = {};
    for (let c = 0; c < names.length; ++c) row[names[c]] = lists[c][i];
    out[i] = row;
  }
  return out;
}
