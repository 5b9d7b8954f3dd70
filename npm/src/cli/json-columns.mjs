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
    // Pretty-printed JSON holds no raw newline inside a string: removing
    // each newline and the indentation after it leaves compact JSON.
    const lines = Object.entries(value).map(([k, v]) => `    ${JSON.stringify(k)}: ${stringify(v).replace(/\n\s*/g, '')}`);
    text = text.replace(JSON.stringify(marker(name, salt)), () => `{\n${lines.join(',\n')}\n  }`);
  }
  return text;
}
