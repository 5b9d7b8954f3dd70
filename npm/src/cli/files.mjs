// Files a command reads (opened, never loaded whole) and writes: where the
// outputs go, whether they may be written, and writing them all-or-nothing.
// The rules ("files are safe"):
// - `-o DIR/` or `-o` naming an existing folder puts the outputs inside it;
//   nothing is ever written outside the folder of the named output.
// - No output replaces a file the command reads (compared by device and
//   inode with every file the process opened for reading, not only the
//   named inputs: the shards of a safetensors index too), unless it is the
//   explicit in-place case (the output .pte is the input .pte, asked for by
//   naming it or with --in-place/--force): then the model's files are
//   replaced as a set, and the command says so.
// - An output that exists and is not a regular file (FIFO, device such as
//   /dev/null, socket) is refused (OUTPUT_NOT_REGULAR, exit 2), even with
//   --force: it is never replaced and never written through.
// - Replacing any other existing file needs --force; without it the command
//   stops before writing anything and names the file.
// - Every output is first written to an exclusively created temporary in its
//   folder; all are renamed into place together at the end. On a failure or
//   a signal (SIGINT, SIGTERM, SIGHUP; in every command) every temporary is
//   removed and no target has changed.
// - A closed output pipe (`validate X | head -1`) ends the command quietly
//   with the status of the work done (quietOnClosedPipes).
// Every command that writes files does so through withOutputs() below.
import { linkSync, lstatSync, mkdirSync, renameSync, rmdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { stageArtifact } from '../node-files.mjs';
import { checkRegularOutput, filesRead, onInterrupt, trackReads } from '../node-guards.mjs';
import { isUrl } from './inputs.mjs';
import { progressBar } from './progress.mjs';

// The CLI compares outputs with every file it read: remember them all.
trackReads();

export function cliError(code, message, exitStatus = undefined) {
  return Object.assign(new Error(message), exitStatus === undefined ? { code } : { code, exitStatus });
}

// OUTPUT_NOT_REGULAR is about where to write: exit status 2, as for OUTPUT_EXISTS.
const outputError = (code, message) => cliError(code, message, 2);

// EPIPE on stdout or stderr (the reader went away: `| head`, `| true`) is
// not an error of the command: nothing more is printed there, and the
// command ends with the status of its work instead of a stack trace.
// Node makes process.stdout and process.stderr when they are first read,
// and for a pipe that loads its stream and net modules (~30, about a tenth
// of a bare node's start-up; issue 42): so the handler is attached when a
// stream is made, not by making both here.
const quiet = (e) => {
  if (e?.code !== 'EPIPE') throw e;
};
let stdoutMade = false;
export function quietOnClosedPipes(names = ['stdout', 'stderr']) {
  for (const name of names) {
    const { get, ...rest } = Object.getOwnPropertyDescriptor(process, name);
    let stream = null;
    Object.defineProperty(process, name, {
      ...rest,
      get() {
        if (!stream) {
          stream = get.call(this);
          stream.on('error', quiet);
          if (name === 'stdout') stdoutMade = true;
        }
        return stream;
      },
    });
  }
}

// `text` on stdout. Until something has made process.stdout, written to
// fd 1 directly (a command that prints once never makes the stream, see
// above); a write that fails (EAGAIN: a non-blocking pipe that is full,
// EPIPE, no fd 1) hands what is left to process.stdout, which deals with
// it as it always did, and so does every later write, keeping the order.
export function writeOut(text) {
  if (!stdoutMade) {
    const bytes = Buffer.from(text);
    let at = 0;
    try {
      while (at < bytes.length) at += writeSync(1, bytes, at, bytes.length - at);
      return;
    } catch {
      stdoutMade = true;
      text = bytes.subarray(at);
    }
  }
  process.stdout.write(text);
}

// stat of `path` following links, or null when nothing is there. A path
// through a file ("a.pte/x.pte") is an I/O problem named as such.
function statOrNull(path, stat = statSync) {
  try {
    return stat(path);
  } catch (e) {
    if (e.code === 'ENOENT') return null;
    if (e.code === 'ENOTDIR') throw cliError('IO_ERROR', `cannot use ${path}: a part of it is a file, not a folder`);
    throw cliError('IO_ERROR', `cannot use ${path}: ${e.message}`);
  }
}

// The file identity (device and inode): equal for two names of one file
// (links, symlinks, "./a" and "a").
export function identity(path) {
  const s = statOrNull(path);
  return s ? `${s.dev}:${s.ino}` : null;
}

// `-o OUT` for an input .pte named `inputName`: { pte, dir, folder } — OUT
// itself, or OUT/<input name> (folder: true) when OUT ends in a separator or
// is an existing folder.
export function outputPaths(out, inputName) {
  const folder = Boolean(out.endsWith('/') || out.endsWith(sep) || statOrNull(out)?.isDirectory());
  if (folder) return { pte: join(out, inputName), dir: out, folder };
  return { pte: out, dir: dirname(out), folder };
}

// The inputs named on the command line as checkTargets compares them (by
// file identity; a URL is no file here).
export const namedInputs = (paths) => paths.map((path) => ({ path, id: isUrl(path) ? null : identity(path) }));

// Whether this is the in-place case (the output .pte is the input .pte),
// and whether it was asked for: naming the .pte itself as OUT asks for it;
// a folder that happens to be the inputs' own (-o DIR/) needs --in-place
// (or --force), else OUTPUT_IS_INPUT saying so.
export function inPlaceCase({ out, outPte, folder, input }, { inPlace: asked, force }) {
  const id = identity(outPte);
  if (id === null || id !== input.id) return false;
  if (folder && !asked && !force) {
    throw cliError('OUTPUT_IS_INPUT', `-o ${out} would write into the inputs' own files (${outPte} is the input ` +
      `${input.path}); pass --in-place to replace the model in place, or choose another folder (nothing was written)`);
  }
  return true;
}

// Refuses targets that would replace an input (outside the in-place case)
// or another existing file (without force), or that are folders, FIFOs,
// devices or sockets. targets: [path]; inputs: [{ path, id }], to which
// every other file this process read is added.
// Returns the targets that replace inputs (the in-place case), so that the
// command can say so.
export function checkTargets(targets, given, { force, inPlace }) {
  const inputs = [...given, ...filesRead()];
  const seen = new Set();
  const replaced = [];
  for (const path of targets) {
    const full = resolve(path);
    if (seen.has(full)) throw cliError('OUTPUT_CONFLICT', `two outputs would both be written to ${path}`);
    seen.add(full);
    const link = statOrNull(path, lstatSync);
    if (!link) continue;
    if (statOrNull(path)?.isDirectory()) throw cliError('IO_ERROR', `cannot write ${path}: it is a folder`);
    checkRegularOutput(path, outputError);
    const id = identity(path);
    const input = id && inputs.find((i) => i.id === id);
    if (input && !inPlace) {
      throw cliError('OUTPUT_IS_INPUT', `refusing to replace ${path}: this command reads it (input ${input.path}); ` +
        'choose another output name or folder (nothing was written)');
    }
    if (input) replaced.push(path);
    if (!input && !force) {
      throw cliError('OUTPUT_EXISTS', `${path} exists and is not an input of this command; ` +
        'pass --force to replace it, or choose another output (nothing was written)');
    }
  }
  return replaced;
}

// Runs a clean-up step whose failure must not replace the error being
// reported (the first error wins).
function quietly(step) {
  try {
    step();
  } catch {
    // the first error wins
  }
}

// All-or-nothing writing of a set of files.
export class OutputTransaction {
  #staged = [];   // { path, temp, release }
  #created = [];  // folders this transaction made, innermost last
  #forget = null;  // drops the clean-up on interruption, once committed or discarded

  // On SIGINT/SIGTERM/SIGHUP the temporaries and folders go, whichever
  // command this is (node-guards.mjs; repack also stops its writes).
  #guard() {
    this.#forget ??= onInterrupt(() => this.discard());
  }

  // Makes the folder and its missing parents, remembering them so that a
  // failed command removes them again.
  makeFolder(dir) {
    const missing = [];
    for (let d = resolve(dir); ; d = dirname(d)) {
      const s = statOrNull(d);
      if (s) {
        if (!s.isDirectory()) throw cliError('IO_ERROR', `cannot write into ${dir}: ${d} is a file, not a folder`);
        break;
      }
      missing.unshift(d);
      if (dirname(d) === d) break;
    }
    if (missing.length) this.#guard();
    for (const d of missing) {
      try {
        mkdirSync(d);
      } catch (e) {
        throw cliError('IO_ERROR', `cannot create folder ${d}: ${e.message}`);
      }
      this.#created.push(d);
    }
  }

  // Writes `artifact` to a new temporary beside `path`.
  async stage(path, artifact, options) {
    this.#guard();
    const { temp, release } = await stageArtifact(artifact, path, options);
    this.#staged.push({ path, temp, release });
  }

  // Renames every temporary into place, in staging order. A target that
  // exists is first linked to a backup name, so that a failed rename can put
  // back every file already replaced: either all targets change or none.
  commit() {
    const done = [];
    try {
      for (const s of this.#staged) {
        checkRegularOutput(s.path, outputError);  // again: it may have appeared while writing
        let backup = null;
        if (statOrNull(s.path, lstatSync)) {
          backup = join(dirname(resolve(s.path)), `.${basename(s.path).slice(0, 96)}.${randomBytes(12).toString('hex')}.old`);
          try {
            linkSync(s.path, backup);
          } catch {
            backup = null;  // no hard links here: this target cannot be put back
          }
        }
        try {
          renameSync(s.temp, s.path);
        } catch (e) {
          if (backup) quietly(() => rmSync(backup, { force: true }));
          throw cliError('IO_ERROR', `cannot write ${s.path}: ${e.message}`);
        }
        done.push({ ...s, backup });
      }
    } catch (e) {
      for (const d of done.reverse()) quietly(() => (d.backup ? renameSync(d.backup, d.path) : rmSync(d.path, { force: true })));
      this.discard();
      throw e;
    }
    for (const d of done) if (d.backup) quietly(() => rmSync(d.backup, { force: true }));
    for (const s of this.#staged) s.release();
    this.#staged = [];
    this.#created = [];
    this.#release();
  }

  #release() {
    this.#forget?.();
    this.#forget = null;
  }

  // Removes every temporary and every folder made; never throws (the error
  // that made the command fail is the one to report).
  discard() {
    for (const s of this.#staged) {
      quietly(() => rmSync(s.temp, { force: true }));
      s.release();
    }
    this.#staged = [];
    for (const d of this.#created.reverse()) quietly(() => rmdirSync(d));  // not empty or gone: left
    this.#created = [];
    this.#release();
  }
}

// SIGINT, SIGTERM and SIGHUP abort `controller` (the writes stop at their
// next check and the transaction is discarded); a second signal discards at
// once and exits. Returns a function that removes the handlers.
function abortOnSignals(controller, transaction) {
  const numbers = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 };
  const handlers = {};
  for (const [name, n] of Object.entries(numbers)) {
    handlers[name] = () => {
      if (controller.signal.aborted) {
        transaction.discard();
        process.exit(128 + n);
      }
      controller.abort(Object.assign(new Error(`interrupted by ${name}; nothing was written`), { code: 'INTERRUPTED', exitStatus: 128 + n }));
    };
    process.on(name, handlers[name]);
  }
  return () => {
    for (const [name, h] of Object.entries(handlers)) process.off(name, h);
  };
}

// The writing tail every command that writes files shares: runs
// `body(outputs)`, the command's own work, in which `outputs.write(files,
// options)` writes its files all or nothing; on any failure (or a signal)
// every temporary and every folder made is removed and the error is
// rethrown (the signal's INTERRUPTED when one came: it is the cause,
// whatever the writes then threw).
// stopOnSignals (default true): SIGINT, SIGTERM and SIGHUP stop the writes
// at their next check and the command ends with INTERRUPTED (exit 128+N; a
// second signal exits at once). false: no handler of the command's own; a
// signal removes the temporaries and the process dies of it (node-guards.mjs)
// — for weights and export-weights, and for commands that print rather than
// write (graph without -o), which a signal simply ends.
export async function withOutputs(body, { stopOnSignals = true } = {}) {
  const controller = new AbortController();
  const transaction = new OutputTransaction();
  const stopSignals = stopOnSignals ? abortOnSignals(controller, transaction) : () => {};
  const outputs = {
    // files: [{ path, artifact }], staged and renamed in this order.
    // inputs: [{ path, id }] (namedInputs) that no target may replace,
    // beside every file the process read; force, inPlace: as checkTargets.
    // folder: made first (with its missing parents) and removed again on
    // failure. progress: { remote } shows the writes on stderr (progress.mjs).
    // Returns the targets that replace inputs (the in-place case).
    async write(files, { inputs = [], force = false, inPlace = false, folder, progress } = {}) {
      const replaced = checkTargets(files.map((f) => f.path), inputs, { force: Boolean(force), inPlace });
      if (folder !== undefined) transaction.makeFolder(folder);
      const bar = progress ? progressBar(files.map((f) => ({ path: f.path, size: f.artifact.size })), progress) : null;
      try {
        for (const [index, f] of files.entries()) {
          const onProgress = bar ? (p) => bar.update(index, p.bytesWritten) : null;
          await transaction.stage(f.path, f.artifact, { signal: controller.signal, onProgress });
        }
      } finally {
        bar?.done();
      }
      // A signal that came during synchronous work is delivered on this turn.
      await new Promise(setImmediate);
      if (controller.signal.aborted) throw controller.signal.reason;
      transaction.commit();
      return replaced;
    },
  };
  try {
    return await body(outputs);
  } catch (e) {
    transaction.discard();
    throw controller.signal.aborted ? controller.signal.reason : e;
  } finally {
    stopSignals();
  }
}
