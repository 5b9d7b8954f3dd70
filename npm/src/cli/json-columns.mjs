// --json text of a document whose members hold columns (inspect's
// namedData: arrays of a million values): as stringify writes it, except
// that each column of those members is one line. Indented one value per
// line, a million-entry column is a million lines of mostly indentation.
import { stringify } from './format.mjs';

// A marker no value of the document can be expected to equal (random, as
// stringify's own for BigInt).
const marker = (name, salt) => `\u0000columns${salt}:${name}`;

export function stringifyWithColumns(doc, members) {
  const salt = Math.random().toString(36).slice(2);
  const held = {};
  const copy = { ...doc };
  for (const name of members) {
    if (copy[name] === null || typeof copy[name] !== 'object') continue;
    held[name] = copy[name];
    copy[name] = marker(name, salt);
  }
  let text = stringify(copy);
  for (const [name, value] of Object.entries(held)) {
    const lines = Object.entries(value).map(([k, v]) => `    ${JSON.stringify(k)}: ${compact(v)}`);
    // Joined around the marker (ropes, not a replace's copy of the text).
    const mark = JSON.stringify(marker(name, salt));
    const at = text.indexOf(mark);
    text = `${text.slice(0, at)}{\n${lines.join(',\n')}\n  }${text.slice(at + mark.length)}`;
  }
  return text;
}

// One value as compact JSON: JSON.stringify itself unless it holds a BigInt
// (an integer past 2^53, which stringify writes exactly); then stringify's
// text with its newlines and indentation removed (pretty-printed JSON holds
// no raw newline inside a string).
function compact(v) {
  const big = (x) => typeof x === 'bigint' || (x !== null && typeof x === 'object' && Object.values(x).some(big));
  return big(v) ? stringify(v).replace(/\n\s*/g, '') : JSON.stringify(v);
}
