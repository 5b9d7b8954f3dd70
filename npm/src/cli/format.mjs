// Formatting for the CLI's human output. Every name that comes from a file
// goes through printable(): a crafted file must not be able to move the
// cursor, clear the screen or fake a line of our output.

// Control characters (C0, DEL, C1) and the Unicode line/paragraph separators
// and bidi overrides, escaped as \xNN / \uNNNN; backslashes doubled so the
// escaped form is unambiguous.
const UNSAFE = /[\\\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function printable(value) {
  if (value === null || value === undefined) return '-';
  return String(value).replace(UNSAFE, (c) => {
    if (c === '\\') return '\\\\';
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

// Text that is already escaped where it quotes a name (the core's messages
// write a name's control bytes as \xNN): control characters escaped, a
// backslash left as it is, so nothing is escaped twice.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function printableOnce(value) {
  if (value === null || value === undefined) return '-';
  return String(value).replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

// Sizes: bytes below 1 KiB, else one decimal in the largest binary unit
// that keeps the number at or above 1 (1536 -> "1.5 KiB", 5 GiB -> "5.0 GiB").
const UNITS = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

export function fmtBytes(n) {
  if (n === null || n === undefined) return '-';
  let v = Number(n);
  if (v < 1024) return `${v} B`;
  let unit = -1;
  while (v >= 1024 && unit < UNITS.length - 1) {
    v /= 1024;
    ++unit;
  }
  return `${v.toFixed(1)} ${UNITS[unit]}`;
}

// A plain-text table; cells are escaped. Widths are computed with a loop,
// not Math.max(...cells): a file can make a table of any number of rows.
export function table(headers, rows) {
  const cells = [headers, ...rows.map((r) => r.map((c) => printable(c)))];
  const widths = headers.map(() => 0);
  for (const row of cells) {
    for (let i = 0; i < widths.length; ++i) widths[i] = Math.max(widths[i], row[i].length);
  }
  const line = (r) => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  const out = [line(cells[0]), line(widths.map((w) => '-'.repeat(w)))];
  for (let i = 1; i < cells.length; ++i) out.push(line(cells[i]));
  return out.join('\n');
}

export const indent = (text, n) => text.split('\n').map((l) => ' '.repeat(n) + l).join('\n');

// JSON with int64 values exact: BigInts are written as plain number tokens.
// The marker carries a random nonce, so no string from a file can pose as one.
export function stringify(value) {
  const marker = `\u0000int${Math.random().toString(36).slice(2)}:`;
  const text = JSON.stringify(value, (k, x) => (typeof x === 'bigint' ? `${marker}${x}` : x), 2);
  const escaped = JSON.stringify(marker).slice(1, -1);
  return text.split(`"${escaped}`).map((part, i) => (i === 0 ? part : part.replace(/^(-?\d+)"/, '$1'))).join('');
}

// Long lists in the human output: the first `limit` rows, then one line
// saying how many were left out (a .ptd can name a million tensors; --json
// prints them all).
export const ROW_LIMIT = 40;

export function tableOf(headers, list, toRow, limit = ROW_LIMIT) {
  const shown = table(headers, (list.length > limit ? list.slice(0, limit) : list).map(toRow));
  return list.length > limit ? `${shown}\n${moreLine(list.length - limit, 'rows')}` : shown;
}

export function moreLine(count, what) {
  return `… and ${count.toLocaleString('en-US')} more ${what} (--json prints all)`;
}

// A list of names on one line: the first few, then how many more.
export function namesLine(names, limit = 3) {
  if (names.length <= limit) return names.join(', ');
  return `${names.slice(0, limit).join(', ')} and ${(names.length - limit).toLocaleString('en-US')} more`;
}
