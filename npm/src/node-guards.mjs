// Node only: what keeps outputs from harming files.
// - Every file opened for reading can be remembered by identity (device and
//   inode), so that an output is compared with every input actually read,
//   also those a command opens on its own (the shards a safetensors index
//   names). Off unless a program asks for it (the CLI does): a long-running
//   process that opens many files would otherwise keep a growing list.
// - Temporaries that are not yet renamed into place are removed when the
//   process gets SIGINT, SIGTERM or SIGHUP. When nothing else listens for
//   that signal the process then dies of it as it would have (exit status
//   128 + N); when something does (the CLI's repack, the caller's own
//   handler), that listener decides what happens next.
// - An output path that names something other than a regular file (a FIFO,
//   a device such as /dev/null, a socket) is refused with
//   OUTPUT_NOT_REGULAR: renaming a new file over it would replace the node
//   itself (as root, /dev/null), and writing through it would not be
//   all-or-nothing. Nothing is written.
import { rmSync, statSync } from 'node:fs';
import { EtpackError } from './errors.mjs';

const reads = { enabled: false, byIdentity: new Map() };  // "dev:ino" -> the path first opened

export function trackReads() {
  reads.enabled = true;
}

// Called with the fstat of every file opened for reading.
export function noteRead(path, stat) {
  if (!reads.enabled) return;
  const id = `${stat.dev}:${stat.ino}`;
  if (!reads.byIdentity.has(id)) reads.byIdentity.set(id, path);
}

// [{ path, id }] of every file read since trackReads().
export function filesRead() {
  return [...reads.byIdentity].map(([id, path]) => ({ path, id }));
}

const SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };
const cleanups = new Set();
let handlers = null;

function onSignal(name) {
  // Last registered first: a temporary goes before the folder made for it.
  for (const step of [...cleanups].reverse()) {
    try {
      step();
    } catch {
      // best effort: the other clean-ups still run
    }
  }
  cleanups.clear();
  uninstall();
  // Nobody else handles it: die of the signal, as without this handler.
  if (process.listenerCount(name) === 0) process.kill(process.pid, name);
}

function install() {
  handlers = {};
  for (const name of Object.keys(SIGNALS)) {
    handlers[name] = () => onSignal(name);
    process.on(name, handlers[name]);
  }
}

function uninstall() {
  if (!handlers) return;
  for (const [name, h] of Object.entries(handlers)) process.off(name, h);
  handlers = null;
}

// Runs `step` (synchronous) if the process is interrupted before the
// returned function is called; that function forgets the step.
export function onInterrupt(step) {
  cleanups.add(step);
  if (!handlers) install();
  return () => {
    cleanups.delete(step);
    if (cleanups.size === 0) uninstall();
  };
}

// A temporary file removed on interruption until `release()` (after its
// rename or removal).
export function guardTemporary(temp) {
  return onInterrupt(() => rmSync(temp, { force: true }));
}

// Refuses an output path that exists and is not a regular file (followed
// through symbolic links). `makeError(code, message)` builds the error.
export function checkRegularOutput(path, makeError = (code, message) => new EtpackError(code, message)) {
  let stat;
  try {
    stat = statSync(path, { throwIfNoEntry: false });
  } catch {
    return;  // not reachable: writing it reports why
  }
  if (!stat || stat.isFile() || stat.isDirectory()) return;  // folders are refused by their own rule
  const kind = stat.isFIFO() ? 'a FIFO (named pipe)' : stat.isCharacterDevice() ? 'a character device'
    : stat.isBlockDevice() ? 'a block device' : stat.isSocket() ? 'a socket' : 'not a regular file';
  throw makeError('OUTPUT_NOT_REGULAR', `refusing to write ${path}: it is ${kind}, not a regular file; ` +
    'outputs are written to a temporary and renamed into place, which would replace it (nothing was written)');
}
