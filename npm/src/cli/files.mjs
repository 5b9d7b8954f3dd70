// Files a command reads (opened, never loaded whole) and writes: where the
// outputs go, whether they may be written, and writing them all-or-nothing. The rules (issue 10, "files are safe"):
// - `-o DIR/` or `-o` naming an existing folder puts the outputs inside it;
//   nothing is ever written outside the folder of the named output.
// - No output replaces a file the command reads, unless it is the explicit
//   in-place case (the output .pte is the input .pte): then the model's
//   files are replaced as a set.
// - Replacing any other existing file needs --force; without it the command
//   stops before writing anything and names the file.
// - Every output is first written to an exclusively created temporary in its
//   folder; all are renamed into place together at the end. On a failure or
//   a signal every temporary is removed and no target has changed.
import { linkSync, lstatSync, mkdirSync, renameSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { stageArtifact } from '../node-files.mjs';

export function cliError(code, message) {
  return Object.assign(new Error(message), { code });
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

// `-o OUT` for an input .pte named `inputName`: { pte, dir } — OUT itself,
// or OUT/<input name> when OUT ends in a separator or is an existing folder.
export function outputPaths(out, inputName) {
  const folder = out.endsWith('/') || out.endsWith(sep) || statOrNull(out)?.isDirectory();
  if (folder) return { pte: join(out, inputName), dir: out };
  return { pte: out, dir: dirname(out) };
}

// Refuses targets that would replace an input (outside the in-place case)
// or another existing file (without force), or that are folders.
// targets: [path]; inputs: [{ path, id }].
export function checkTargets(targets, inputs, { force, inPlace }) {
  const seen = new Set();
  for (const path of targets) {
    const full = resolve(path);
    if (seen.has(full)) throw cliError('OUTPUT_CONFLICT', `two outputs would both be written to ${path}`);
    seen.add(full);
    const link = statOrNull(path, lstatSync);
    if (!link) continue;
    if (statOrNull(path)?.isDirectory()) throw cliError('IO_ERROR', `cannot write ${path}: it is a folder`);
    const id = identity(path);
    const input = id && inputs.find((i) => i.id === id);
    if (input && !inPlace) {
      throw cliError('OUTPUT_IS_INPUT', `refusing to replace ${path}: this command reads it (input ${input.path}); ` +
        'choose another output name or folder (nothing was written)');
    }
    if (!input && !force) {
      throw cliError('OUTPUT_EXISTS', `${path} exists and is not an input of this command; ` +
        'pass --force to replace it, or choose another output (nothing was written)');
    }
  }
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
  #staged = [];   // { path, temp }
  #created = [];  // folders this transaction made, innermost last

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
    const { temp } = await stageArtifact(artifact, path, options);
    this.#staged.push({ path, temp });
  }

  // Renames every temporary into place, in staging order. A target that
  // exists is first linked to a backup name, so that a failed rename can put
  // back every file already replaced: either all targets change or none.
  commit() {
    const done = [];
    try {
      for (const s of this.#staged) {
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
    this.#staged = [];
    this.#created = [];
  }

  // Removes every temporary and every folder made; never throws (the error
  // that made the command fail is the one to report).
  discard() {
    for (const s of this.#staged) quietly(() => rmSync(s.temp, { force: true }));
    this.#staged = [];
    for (const d of this.#created.reverse()) quietly(() => rmdirSync(d));  // not empty or gone: left
    this.#created = [];
  }
}

// SIGINT, SIGTERM and SIGHUP abort `controller` (the writes stop at their
// next check and the transaction is discarded); a second signal discards at
// once and exits. Returns a function that removes the handlers.
export function abortOnSignals(controller, transaction) {
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
