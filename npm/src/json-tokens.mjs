// A linear scan over JSON text that rewrites chosen tokens outside strings
// (bare numbers and the NaN/Infinity tokens JSON.parse cannot read) and
// chosen strings. A loop, not a regular expression: V8's backtracking over
// `"(?:[^"\\]|\\.)*"` overflows the stack on a long string (a 50 MB name),
// and a reply may hold any string a file holds.
//
// onString(token, isKey) and onBare(token) return the replacement text, or
// undefined to keep the token. onString is only called for strings whose
// first character is an escaped NUL ("\u0000...": the only ones the
// markers concern).
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NUL_ESCAPE = '\\u0000';

export function rewriteTokens(text, onString, onBare) {
  const parts = [];
  let kept = 0;  // text[kept, i) is copied unchanged
  const replace = (start, end, replacement) => {
    if (replacement === undefined) return;
    parts.push(text.slice(kept, start), replacement);
    kept = end;
  };
  for (let i = 0; i < text.length;) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (onString && text.startsWith(NUL_ESCAPE, i + 1)) {
        let k = end;
        while (k < text.length && isSpace(text.charCodeAt(k))) ++k;
        replace(i, end, onString(text.slice(i, end), text.charCodeAt(k) === 0x3a));
      }
      i = end;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39) || c === 0x4e || c === 0x49) {  // - digit N I
      let end = i + 1;
      while (end < text.length && isBareChar(text.charCodeAt(end))) ++end;
      replace(i, end, onBare(text.slice(i, end)));
      i = end;
    } else {
      ++i;
    }
  }
  if (!parts.length) return text;
  parts.push(text.slice(kept));
  return parts.join('');
}

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
function stringEnd(text, start) {
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

const isSpace = (c) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
// Digits, letters (NaN, Infinity, exponents), '.', '+', '-'.
const isBareChar = (c) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2e || c === 0x2b || c === 0x2d;
