// How a failed command ends: the message on stderr (escaped: it may quote
// names from a file), the details a refusal carries, and the exit status
// that --help documents.
import { printable, printableOnce, stringify } from './format.mjs';
import { UsageError } from './args.mjs';
import { IO_CODES } from './inputs.mjs';

// Exit status 2: the command could not be carried out as asked (usage, a
// file or URL that cannot be read or written, an output that may not be
// replaced, an installation whose etpack.wasm cannot be read or compiled:
// nothing was judged, so not 1).
const USAGE_OR_IO = new Set([...IO_CODES, 'OUTPUT_EXISTS', 'OUTPUT_IS_INPUT', 'OUTPUT_CONFLICT', 'INVALID_TAG', 'WASM_LOAD_FAILED']);

export function exitStatus(e) {
  if (Number.isInteger(e?.exitStatus)) return e.exitStatus;
  if (e instanceof UsageError || !e?.code || USAGE_OR_IO.has(e.code)) return 2;
  return 1;
}

export function formatFinding(f, kind) {
  const where = [f.file, f.offset !== null && f.offset !== undefined ? `offset ${f.offset}` : null, f.path].filter(Boolean).join(' ');
  // Escaped once: the core's messages and paths write a name's control
  // bytes as \xNN already.
  return printableOnce(`${kind} ${f.code}${where ? ` at ${where}` : ''}: ${f.message}`);
}

// Lines explaining a refusal: the missing keys, or the findings that made
// an input or an output invalid.
export function detailLines(e) {
  const lines = [];
  if (Array.isArray(e?.keys)) for (const k of e.keys) lines.push(`  missing: ${printable(k)}`);
  if (Array.isArray(e?.findings)) {
    for (const f of e.findings) lines.push(`  ${formatFinding(f, f.severity === 'warning' ? 'warning' : 'error')}`);
  }
  if (Array.isArray(e?.problems)) for (const p of e.problems) lines.push(`  ${printable(p?.message ?? p)}`);
  if (e?.hint) lines.push(`  ${printable(e.hint)}`);
  return lines;
}

const codeOf = (e) => (e instanceof UsageError || e?.code ? String(e.code) : 'INTERNAL');

export function reportError(e, stream = process.stderr) {
  // The message is escaped whole, line breaks included: a name quoted in it
  // cannot start a line of its own. An error whose details are a list
  // (WEIGHTS_MISMATCH: `problems`) has them in its message too, after a
  // line break; those are printed from the list instead, one escaped line
  // each, under the message's first line (no literal "\x0a").
  let message = String(e?.message ?? e);
  if (Array.isArray(e?.problems) && message.includes('\n')) message = message.slice(0, message.indexOf('\n'));
  // "FILE: message", the file as given (a URL without its query), unless
  // the message starts with it already. Escaped once: the core's messages
  // quote names already escaped.
  const file = typeof e?.file === 'string' && e.file !== '' && !message.startsWith(e.file) ? `${e.file}: ` : '';
  stream.write(`executorch-pack: error [${printable(codeOf(e))}]: ${printableOnce(file + message)}\n`);
  if (e instanceof UsageError) stream.write(`Run 'executorch-pack ${e.command ? `${e.command} ` : ''}--help' for usage.\n`);
  for (const line of detailLines(e)) stream.write(`${line}\n`);
}

// With --json, a failure is also one JSON document on stdout (the message
// stays on stderr): the command, the code, the message, the exit status,
// and what a refusal carries (missing keys, findings, problems, hint).
export function errorDocument(command, e) {
  const error = { code: codeOf(e), message: String(e?.message ?? e), file: typeof e?.file === 'string' ? e.file : null, exitStatus: exitStatus(e) };
  if (Array.isArray(e?.keys)) error.keys = e.keys;
  if (Array.isArray(e?.findings)) error.findings = e.findings;
  if (Array.isArray(e?.problems)) error.problems = e.problems;
  if (typeof e?.hint === 'string') error.hint = e.hint;
  return { schema: 1, command, ok: false, error };
}

// A command's --json reply: one document, `ok` true exactly when the exit
// status is 0 (validate: no errors; diff: equivalent).
export function jsonReply(command, body, ok = true) {
  return `${stringify({ schema: 1, command, ok, ...body })}\n`;
}
