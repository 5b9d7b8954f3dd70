// The core's JSON replies -> JS values: the markers of marked replies
// (parseReply), and exact integers and special numbers of plain ones
// (parseLossless).
import { EtpackError } from '../errors.mjs';
import { isBareChar, isSpace, stringEnd } from '../json-tokens.mjs';
import { setOwn } from './own.mjs';
import { nanBitsValue } from './nan-bits.mjs';

const NUL = '\u0000';

// The special numbers of the core's JSON (bare NaN, Infinity, -Infinity;
// -0.0 is plain JSON) -> placeholder strings the reviver turns back into
// Numbers. Only texts that mention them pay for the scan.
const SPECIAL_VALUES = { NaN, Infinity, '-Infinity': -Infinity };
const markSpecial = (token) => (Object.hasOwn(SPECIAL_VALUES, token) ? `"\\u0000${token}"` : undefined);

function markSpecials(text) {
  if (!text.includes('NaN') && !text.includes('Infinity')) return text;
  return rewriteTokens(text, null, markSpecial);
}

// Reply JSON -> JS values: "\0<digits>" is a BigInt, "\0NaN" etc. a special
// number, "\0B<16 hex digits>" a NaN other than the canonical one
// ({ nanBits }: ../nan-bits.mjs), "\0\0..." a string that began with NUL, {"\0blob": i} the i-th
// returned byte array. JSON.parse makes every key an own property
// (`__proto__` included).
export function parseReply(text, blobs) {
  try {
    const marked = markSpecials(text);
    const parsed = JSON.parse(marked);
    // Markers all begin with an escaped NUL: without one there is nothing to do.
    return marked.includes('\\u0000') ? resolveMarkers(parsed, blobs) : parsed;
  } catch (e) {
    throw new EtpackError('INTERNAL', `the core's reply could not be read: ${e?.message ?? e}`, { cause: e });
  }
}

// The markers of a parsed reply replaced in place, by an iterative walk
// (faster than a JSON.parse reviver, and no recursion whatever the depth).
export function resolveMarkers(root, blobs) {
  const resolve = (v) => {
    if (typeof v === 'string') {
      if (v.charCodeAt(0) !== 0) return v;
      if (v.charCodeAt(1) === 0) return v.slice(1);
      const rest = v.slice(1);
      if (Object.hasOwn(SPECIAL_VALUES, rest)) return SPECIAL_VALUES[rest];
      return rest.charCodeAt(0) === 0x42 ? nanBitsValue(rest.slice(1)) : BigInt(rest);  // "B<hex>": a NaN's bits
    }
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, BLOB_KEY)) return blobs[v[BLOB_KEY]];
    return v;
  };
  const top = resolve(root);
  const stack = top === root ? [top] : [];
  while (stack.length) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object' || ArrayBuffer.isView(node)) continue;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; ++i) {
        const v = node[i];
        if (v === null || (typeof v !== 'object' && typeof v !== 'string')) continue;
        const r = resolve(v);
        if (r !== v) node[i] = r;
        else if (typeof v === 'object') stack.push(v);
      }
    } else {
      for (const key of Object.keys(node)) {
        const v = node[key];
        if (v === null || (typeof v !== 'object' && typeof v !== 'string')) continue;
        const r = resolve(v);
        if (r !== v) setOwn(node, key, r);
        else if (typeof v === 'object') stack.push(v);
      }
    }
  }
  return top;
}

const BLOB_KEY = `${NUL}blob`;

// Reply JSON written without BigInt markers (inspect, validate): integers
// beyond 2^53 (sizes and offsets read from a file) become BigInt instead of
// being rounded, strings from the file that begin with NUL stay strings, and
// bare NaN/Infinity tokens become Numbers.
export function parseLossless(text) {
  // Most reports hold none of these: plain JSON.parse then (several times
  // faster than the token pass below on a 200k-entry report).
  if (!/\d{16}/.test(text) && !text.includes('NaN') && !text.includes('Infinity') && !text.includes('\\u0000')) return JSON.parse(text);
  const marked = rewriteTokens(text,
    (token, isKey) => (isKey ? undefined : `"\\u0000${token.slice(1)}`),
    (token) => markSpecial(token) ??
      (/^-?\d+$/.test(token) && !Number.isSafeInteger(Number(token)) ? `"\\u0000${token}"` : undefined));
  return parseReply(marked, []);
}

// A linear scan over JSON text (no regular expression: json-tokens.mjs)
// that rewrites chosen tokens outside strings (bare numbers and the
// NaN/Infinity tokens JSON.parse cannot read) and chosen strings.
//
// onString(token, isKey) and onBare(token) return the replacement text, or
// undefined to keep the token. onString is only called for strings whose
// first character is an escaped NUL ("\u0000...": the only ones the
// markers concern).
const QUOTE = 0x22;
const NUL_ESCAPE = '\\u0000';

function rewriteTokens(text, onString, onBare) {
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
