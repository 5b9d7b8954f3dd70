// How a failed command ends: the message on stderr (escaped: it may quote
// names from a file), the details a refusal carries, and the exit status
// that --help documents.
import { printable } from './format.mjs';
import { UsageError } from './args.mjs';
import { IO_CODES } from './inputs.mjs';

// Exit status 2: the command could not be carried out as asked (usage, a
// file or URL that cannot be read or written, an output that may not be
// replaced).
const USAGE_OR_IO = new Set([...IO_CODES, 'OUTPUT_EXISTS', 'OUTPUT_IS_INPUT', 'OUTPUT_CONFLICT', 'INVALID_TAG']);

export function exitStatus(e) {
  if (Number.isInteger(e?.exitStatus)) return e.exitStatus;
  if (e instanceof UsageError || !e?.code || USAGE_OR_IO.has(e.code)) return 2;
  return 1;
}

export function formatFinding(f, kind) {
  const where = [f.file, f.offset !== null && f.offset !== undefined ? `offset ${f.offset}` : null, f.path].filter(Boolean).join(' ');
  return printable(`${kind} ${f.code}${where ? ` at ${where}` : ''}: ${f.message}`);
}

// Lines explaining a refusal: the missing keys, or the findings that made
// an input or an output invalid.
export function detailLines(e) {
  const lines = [];
  if (Array.isArray(e?.keys)) for (const k of e.keys) lines.push(`  missing: ${printable(k)}`);
  if (Array.isArray(e?.findings)) {
    for (const f of e.findings) lines.push(`  ${formatFinding(f, f.severity === 'warning' ? 'warning' : 'error')}`);
  }
  if (e?.hint) lines.push(`  ${printable(e.hint)}`);
  return lines;
}

export function reportError(e, stream = process.stderr) {
  const code = e instanceof UsageError || e?.code ? e.code : 'INTERNAL';
  // The whole message is escaped, line breaks included: a name quoted in it
  // cannot start a line of its own.
  stream.write(`executorch-pack: error [${printable(code)}]: ${printable(String(e?.message ?? e))}\n`);
  if (e instanceof UsageError) stream.write(`Run 'executorch-pack ${e.command ? `${e.command} ` : ''}--help' for usage.\n`);
  for (const line of detailLines(e)) stream.write(`${line}\n`);
}
