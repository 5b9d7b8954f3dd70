// The one contract every command keeps, applied by the dispatcher
// (bin/executorch-pack.mjs) to whatever a command throws:
// - exit status 0 success; 1 an input is invalid (malformed, the wrong kind
//   of file, refused for its contents) or differs (diff); 2 usage, I/O,
//   network, or an output that may not be written; 128+N stopped by signal N;
// - every error names the file it is about (`error.file`, and the text
//   line "FILE: message"), found here when the command did not say;
// - a file of a kind the command does not take says what it is and which
//   command takes it (WRONG_FILE_KIND).
import { closeSync, openSync, readSync } from 'node:fs';
import { basename } from 'node:path';
import { fileKindOf } from '../generated/file-kinds.mjs';
import { isUrl, openedInputs, shownName } from './inputs.mjs';

// What each kind is called, and the commands that read it.
export const KINDS = {
  pte: { name: 'an ExecuTorch program (.pte)', readBy: ['inspect FILE', 'validate FILE', 'graph FILE', 'repack FILE -o OUT'] },
  ptd: { name: 'an ExecuTorch data file (.ptd)', readBy: ['inspect FILE', 'validate FILE', 'diff FILE OTHER.ptd', 'validate PTE FILE'] },
  bpte: { name: 'a bundled program (.bpte)', readBy: ['inspect FILE', 'validate FILE', 'unbundle FILE -o DIR'] },
  etdp: { name: 'an ETDump (.etdp, a profiling run)', readBy: ['profile PTE --etdump FILE'] },
  safetensors: { name: 'a safetensors file', readBy: ['weights PTE --from FILE -o OUT.ptd', 'repack PTE --weights FILE -o OUT', 'bundle PTE FILE -o OUT.bpte'] },
};

// The kind of a local file from its first bytes: 'pte' | 'ptd' | 'bpte' |
// 'etdp' | 'safetensors' | null (unreadable or none of these).
export function sniffKind(path) {
  if (typeof path !== 'string' || isUrl(path)) return null;
  let fd = null;
  try {
    fd = openSync(path, 'r');
    const head = new Uint8Array(16);
    const n = readSync(fd, head, 0, 16, 0);
    const bytes = head.subarray(0, n);
    const kind = fileKindOf(bytes);
    if (kind) return kind;
    // safetensors: u64 little-endian header length, then '{'.
    if (n >= 9 && bytes[8] === 0x7b && bytes[5] === 0 && bytes[6] === 0 && bytes[7] === 0) return 'safetensors';
    return null;
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

// Codes of errors about a file's contents, for which the file is found by
// reading each input alone when the operation did not say which it was.
const NOT_ABOUT_ONE_FILE = new Set(['USAGE', 'INTERNAL', 'OUT_OF_MEMORY', 'ABORTED', 'OUTPUT_EXISTS', 'OUTPUT_IS_INPUT',
  'OUTPUT_CONFLICT', 'OUTPUT_NOT_REGULAR', 'INVALID_TAG', 'INVALID_ALIGNMENT']);

// The input an error is about: the only input, else the one the message
// quotes, else the first of no known kind, else the first one that fails
// when read alone (inspect), else the first (the model whose files
// do not fit together). `et` reads the inputs again by path.
function culprit(e, inputs, et) {
  if (inputs.length === 1) return inputs[0];
  // The one input whose name the message quotes (options.dataFiles["x.ptd"]).
  const message = String(e?.message ?? '');
  const quoted = inputs.filter((i) => {
    const base = basename(i.arg.replace(/[?#].*$/, ''));
    return message.includes(`"${base}"`) || message.includes(`'${base}'`);
  });
  if (quoted.length === 1) return quoted[0];
  for (const input of inputs) {
    if (!isUrl(input.arg) && sniffKind(input.arg) === null) return input;
  }
  if (et) {
    for (const input of inputs) {
      if (isUrl(input.arg)) continue;
      try {
        et.inspect(input.arg);
      } catch (inner) {
        if (inner?.code !== 'IO_ERROR') return input;
      }
    }
  }
  return inputs[0];
}

// Gives `e` its `file` (the input as shown: a URL without its query) when it
// has none and is about an input; rewrites the message of a file of a kind
// the command does not take.
export function attribute(e, command, et = null) {
  if (e === null || typeof e !== 'object') return e;
  if (Array.isArray(e.findings)) nameFindingFiles(e);
  if (e.file === undefined && Array.isArray(e.findings)) {
    // A refusal for what validate found (INVALID_INPUT): the file of its first error.
    e.file = e.findings.find((f) => f?.severity !== 'warning' && typeof f?.file === 'string')?.file;
  }
  if (e.file === undefined) {
    const inputs = openedInputs();
    e.file = inputs.length && e.code && !NOT_ABOUT_ONE_FILE.has(e.code) ? shownName(culprit(e, inputs, et).arg) : null;
  }
  if (e.file && command?.takes && e.code !== 'WRONG_FILE_KIND') {
    const kind = sniffKind(openedInputs().find((i) => shownName(i.arg) === e.file)?.arg);
    if (kind && !command.takes.includes(kind)) wrongKind(e, command, kind);
  }
  return e;
}

// Findings name the program 'pte' and each data file by its base name:
// here by the names given on the command line.
function nameFindingFiles(e) {
  const inputs = openedInputs();
  if (!inputs.length) return;
  const byBase = new Map(inputs.map((i) => [basename(i.arg.replace(/[?#].*$/, '')), shownName(i.arg)]));
  for (const f of e.findings) {
    if (f === null || typeof f !== 'object') continue;
    if (f.file === 'pte' || f.file === null || f.file === undefined) f.file = shownName(inputs[0].arg);
    else if (byBase.has(f.file)) f.file = byBase.get(f.file);
  }
}

// "an ETDump (...)" -> "An ETDump (...)".
const capital = (s) => s.charAt(0).toUpperCase() + s.slice(1);

function wrongKind(e, command, kind) {
  const takes = command.takes.map((k) => `.${k === 'safetensors' ? 'safetensors' : k}`).join(', ');
  e.cause ??= { code: e.code, message: e.message };
  e.code = 'WRONG_FILE_KIND';
  e.message = `this is ${KINDS[kind].name}; ${command.name} takes ${takes} files`;
  e.hint = `${capital(KINDS[kind].name)} is read by: ${KINDS[kind].readBy.map((c) => `executorch-pack ${c.replaceAll('FILE', e.file)}`).join(', ')}`;
  e.exitStatus = 1;
}
