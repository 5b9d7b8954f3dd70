// Scanning JSON text without a regular expression: V8's backtracking over
// `"(?:[^"\\]|\\.)*"` overflows the stack on a long string (a 50 MB name),
// and text from a file or the core may hold any string. The lexing steps
// here are shared by the duplicate-key check below (safetensors headers) and
// the core's reply rewriting (marshal/reply-json.mjs).
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

// The first key that appears twice in one object of valid JSON text, as
// {key, offset} (offset: of the second occurrence), or null. JSON.parse keeps
// the last of duplicates silently; a reader of untrusted headers refuses
// them instead, since another reader may keep the first. One pass; each
// object's keys in a Set, so linear whatever the text holds; the nesting is
// tracked on an explicit stack (no recursion).
export function firstDuplicateKey(text) {
  const stack = [];  // per open bracket: a Set of keys ({) or null ([)
  for (let i = 0; i < text.length;) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      const keys = stack[stack.length - 1];
      if (keys) {
        let k = end;
        while (k < text.length && isSpace(text.charCodeAt(k))) ++k;
        if (text.charCodeAt(k) === 0x3a) {
          const key = JSON.parse(text.slice(i, end));
          if (keys.has(key)) return { key, offset: i };
          keys.add(key);
        }
      }
      i = end;
    } else {
      if (c === 0x7b) stack.push(new Set());
      else if (c === 0x5b) stack.push(null);
      else if (c === 0x7d || c === 0x5d) stack.pop();
      ++i;
    }
  }
  return null;
}

// Index just past the string starting at `start` (a quote).
export function stringEnd(text, start) {
  let from = start + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    if (q < 0) return text.length;  // unterminated: JSON.parse will say so
    let backslashes = 0;
    for (let k = q - 1; k > start && text.charCodeAt(k) === BACKSLASH; --k) ++backslashes;
    if (backslashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

export const isSpace = (c) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
// Digits, letters (NaN, Infinity, exponents), '.', '+', '-'.
export const isBareChar = (c) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2e || c === 0x2b || c === 0x2d;
