// A result crossing from the core's worker to the page as text, not as a
// structured clone: a graph of one instruction reading 20,000 values is
// ~20,000 node, edge and value objects, and cloning them cost the page's
// thread one ~2 s task (V8 deserializes the whole clone at once). The
// worker packs (packResult): every array longer than CHUNK is cut into
// JSON texts of CHUNK items, each encoded into its own ArrayBuffer (handed
// over, not copied); the page unpacks (unpackResult) one text per task,
// yielding between them, so no task holds more than CHUNK items' parse.
// Exact: a bigint goes as a string marked "\0b", a number JSON cannot hold
// (NaN, ±Infinity, -0) as "\0d" and its text, undefined as "\0u"; a string
// that starts with "\0" gets "\0s" in front (names from a file may hold
// any character). An array sent in parts is the string "\0c" and its part
// index: a string, so no key or value from a file can pose as one. A value holding anything but plain objects, arrays and
// primitives (bytes, a Map) is sent as it is, by structured clone.
export const CHUNK = 1000;
const PARTS = '\u0000c';  // PARTS + part index: an array sent in parts
const BIG = '\u0000b';
const ESC = '\u0000s';
const NUM = '\u0000d';
const UNDEF = '\u0000u';
const NOT_PLAIN = Symbol('not plain data');

// `value` (plain data: objects, arrays, strings, numbers, bigints, null) ->
// { packed, transfer }: `packed` is what postMessage sends, `transfer` its
// buffers.
export function packResult(value) {
  try {
    return packText(value);
  } catch (e) {
    if (e !== NOT_PLAIN) throw e;
    return { packed: value, transfer: [] };
  }
}

function packText(value) {
  const parts = [];  // part index -> [Uint8Array texts]
  const encoder = new TextEncoder();
  const replacer = function (key, v) {
    if (typeof v === 'bigint') return BIG + v.toString();
    if (typeof v === 'string') return v.charCodeAt(0) === 0 ? ESC + v : v;
    if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0) ? v : NUM + String(Object.is(v, -0) ? '-0' : v);
    if (v === undefined) return UNDEF;
    if (typeof v === 'object' && v !== null && !Array.isArray(v) && ![Object.prototype, null].includes(Object.getPrototypeOf(v))) throw NOT_PLAIN;
    if (typeof v === 'function' || typeof v === 'symbol') throw NOT_PLAIN;
    if (Array.isArray(v) && v.length > CHUNK) {
      const id = parts.length;
      const texts = [];
      parts.push(texts);
      for (let i = 0; i < v.length; i += CHUNK) texts.push(encoder.encode(JSON.stringify(v.slice(i, i + CHUNK), replacer)));
      return PARTS + id;
    }
    return v;
  };
  const root = encoder.encode(JSON.stringify({ value }, replacer));
  const transfer = [root.buffer, ...parts.flat().map((t) => t.buffer)];
  return { packed: { packedResult: true, root, parts }, transfer };
}

export const isPacked = (data) => data !== null && typeof data === 'object' && data.packedResult === true;

const nextTask = () => new Promise((resolve) => { setTimeout(resolve, 0); });

function special(text) {
  const tag = text.slice(0, 2), rest = text.slice(2);
  if (tag === BIG) return BigInt(rest);
  if (tag === NUM) return rest === '-0' ? -0 : Number(rest);
  if (tag === UNDEF) return undefined;
  if (tag === PARTS) return null;  // filled in when its parts are parsed
  return rest;
}

// The value packResult packed, rebuilt a chunk per task (async).
export async function unpackResult({ root, parts }) {
  const decoder = new TextDecoder();
  let marks = [];  // [holder, key, part index] still to fill; index -1: undefined
  const reviver = function (key, v) {
    if (typeof v === 'string' && v.charCodeAt(0) === 0) {
      if (v === UNDEF) marks.push([this, key, -1]);  // a reviver's undefined deletes the key: set after the parse
      if (v.startsWith(PARTS)) marks.push([this, key, Number(v.slice(PARTS.length))]);
      return special(v);
    }
    return v;
  };
  // Parses `text`; marks on its own items (when it is a chunk going into
  // `items`) are moved there; undefined values are put back.
  const parse = (text, items = null) => {
    const seen = marks.length;
    const out = JSON.parse(decoder.decode(text), reviver);
    for (let m = seen; m < marks.length; ++m) {
      if (items && marks[m][0] === out && marks[m][2] !== -1) marks[m] = [items, items.length + Number(marks[m][1]), marks[m][2]];
      if (marks[m][2] === -1) marks[m][0][marks[m][1]] = undefined;
    }
    marks = marks.filter((m) => m[2] !== -1);
    return out;
  };
  const top = parse(root);
  while (marks.length) {
    const [holder, key, id] = marks.shift();
    const items = [];
    for (const text of parts[id] ?? []) {
      await nextTask();
      for (const item of parse(text, items)) items.push(item);
    }
    holder[key] = items;
  }
  return top.value;
}
