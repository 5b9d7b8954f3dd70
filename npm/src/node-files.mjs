// Node only: files on disk as inputs (read in ranges, never whole) and
// artifacts written to disk or to a Node stream with bounded memory.
import {
  closeSync, fchmodSync, fstatSync, openSync, read, readSync as fsReadSync, renameSync, rmSync, statSync, writeSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { EtpackError, abortedError, invalidArgument } from './errors.mjs';
import { SOURCE } from './sources.mjs';
import { Artifact, CHUNK, checkSignal, untilAborted } from './artifact.mjs';
import { DISPOSE } from './dispose.mjs';
import { checkRegularOutput, guardTemporary, noteRead } from './node-guards.mjs';

const IO_MAX = 1 << 30;
const FILE_CHUNK = 1 << 20;  // a file range is read and written in pieces this big (see writeStaged)
const PAGE = 4096;
const YIELD = 64 << 20;  // one fs call moves at most this much (Node's limit is 2^31 - 1)

// Closes descriptors of FileSources that were dropped without close().
const finalizer = new FinalizationRegistry((fd) => {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
});

function shortRead(path, position) {
  return new EtpackError('SOURCE_CHANGED', `${path} ended at byte ${position}, before the size it had when opened (was it truncated?)`);
}

export class FileSource {
  #fd;
  #entry;

  constructor(path) {
    try {
      this.#fd = openSync(path, 'r');
    } catch (e) {
      throw new EtpackError('IO_ERROR', `cannot open ${path}: ${e.message}`);
    }
    const stat = fstatSync(this.#fd);
    if (stat.isDirectory()) {
      closeSync(this.#fd);
      throw new EtpackError('IO_ERROR', `cannot open ${path}: it is a folder, not a file`);
    }
    noteRead(path, stat);
    this.path = path;
    this.size = stat.size;
    this.bytesRead = 0;  // every byte read from the file, for measurements
    finalizer.register(this, this.#fd, this);
    const self = this;
    const fd = () => {
      if (self.#fd === null) throw new EtpackError('IO_ERROR', `${path} was closed`);
      return self.#fd;
    };
    // Asynchronous read into `dst` (on the thread pool): writers overlap it
    // with writing the previous chunk.
    const readInto = (dst, at, offset, size) => new Promise((resolve, reject) => {
      const step = (done) => {
        if (done === size) {
          resolve(dst);
          return;
        }
        read(fd(), dst, at + done, Math.min(IO_MAX, size - done), offset + done, (err, n) => {
          if (err) reject(new EtpackError('IO_ERROR', `reading ${path}: ${err.message}`));
          else if (n === 0) reject(shortRead(path, offset + done));
          else {
            self.bytesRead += n;
            step(done + n);
          }
        });
      };
      step(0);
    });
    this.#entry = {
      size: this.size,
      path,
      view: () => null,
      // Synchronous reads for the core (heads, inline bytes, digests) and for
      // contiguous outputs: straight into the destination, no staging copy.
      copyTo(dst, at, offset, size) {
        for (let done = 0; done < size;) {
          const n = fsReadSync(fd(), dst, at + done, Math.min(IO_MAX, size - done), offset + done);
          if (n === 0) throw shortRead(path, offset + done);
          done += n;
          self.bytesRead += n;
        }
      },
      read(offset, size) {
        const buffer = new Uint8Array(size);
        return readInto(buffer, 0, offset, size).then(() => buffer);
      },
      readInto,
    };
  }

  [SOURCE]() {
    return this.#entry;
  }

  close() {
    if (this.#fd !== null) {
      finalizer.unregister(this);
      closeSync(this.#fd);
      this.#fd = null;
    }
  }

  // `using file = et.openFile(path)` closes it at the end of the block.
  [DISPOSE]() {
    this.close();
  }
}

// Writing is staged: the bytes go to a temporary file created exclusively
// ('wx': O_CREAT | O_EXCL, so neither an existing file nor a planted symlink
// at that name is ever opened) under an unpredictable name in the target's
// folder, and only a complete file is renamed into place. A failure or an
// abort removes the temporary; the target is then untouched.
const TEMP_TRIES = 8;

// Removes a temporary after a failure; an error doing so never hides the
// failure that is being reported.
function removeTemporary(temp) {
  try {
    rmSync(temp, { force: true });
  } catch {
    // the first error wins
  }
}

function ioError(what, path, e) {
  return new EtpackError('IO_ERROR', `cannot ${what} ${path}: ${e.message}`);
}

function aborted(signal, path) {
  return abortedError(signal, `writing ${path}`);
}

// A new, empty temporary file beside `path`: { fd, temp, release }. Until
// release() (called once it is renamed or removed) a SIGINT, SIGTERM or
// SIGHUP removes it (node-guards.mjs).
export function createTemporary(path) {
  const dir = dirname(resolve(path));
  const name = basename(path).slice(0, 96);  // leaves room for the suffix within NAME_MAX
  for (let attempt = 0; ; ++attempt) {
    const temp = join(dir, `.${name}.${randomBytes(12).toString('hex')}.tmp`);
    try {
      const fd = openSync(temp, 'wx', 0o666);
      return { fd, temp, release: guardTemporary(temp) };
    } catch (e) {
      if (e.code !== 'EEXIST' || attempt + 1 >= TEMP_TRIES) throw ioError('create a temporary file for', path, e);
    }
  }
}

// Writes `artifact` completely into a new temporary beside `path` and
// returns { temp, written, release }; the caller renames it into place (or
// removes it), then calls release(). A `path` that exists and is not a
// regular file (FIFO, device, socket) is refused: OUTPUT_NOT_REGULAR.
// options: { onProgress({bytesWritten, totalBytes}), signal: AbortSignal }.
export async function stageArtifact(artifact, path, options = {}) {
  if (!(artifact instanceof Artifact)) throw invalidArgument('writeTo takes an Artifact');
  if (typeof path !== 'string' || path === '') throw invalidArgument('path must be a non-empty string');
  const onProgress = options?.onProgress ?? null;
  if (onProgress !== null && typeof onProgress !== 'function') throw invalidArgument('onProgress must be a function');
  const signal = checkSignal(options?.signal);
  if (signal?.aborted) throw aborted(signal, path);
  checkRegularOutput(path);
  const { fd, temp, release } = createTemporary(path);
  try {
    // A replaced file keeps its permissions. (No exception for a missing
    // file: building one costs more than the stat.)
    try {
      const old = statSync(path, { throwIfNoEntry: false });
      if (old?.isFile()) fchmodSync(fd, old.mode & 0o7777);
    } catch {
      // not readable: a new file's permissions
    }
    const written = await writePieces(artifact, fd, { onProgress, signal, path });
    closeSync(fd);
    return { temp, written, release };
  } catch (e) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    removeTemporary(temp);
    release();
    if (e instanceof EtpackError) throw e;
    throw ioError('write', path, e);
  }
}

// Artifact.writeTo(path): staged, then renamed over `path` in one step.
export async function writeArtifact(artifact, path, options = {}) {
  const { temp, written, release } = await stageArtifact(artifact, path, options);
  try {
    const signal = options?.signal;
    if (signal?.aborted) throw aborted(signal, path);
    checkRegularOutput(path);  // again: it may have appeared while writing
    renameSync(temp, path);
  } catch (e) {
    removeTemporary(temp);
    if (e instanceof EtpackError) throw e;
    throw ioError('write', path, e);
  } finally {
    release();
  }
  return written;
}

// Writes an artifact to an open descriptor in file order with bounded
// memory. Small pieces (header, flatbuffer, padding) are gathered into one
// staging buffer so they cost one write; byte arrays of the caller are
// written from where they are (no copy); a file's ranges go through two
// reused FILE_CHUNK buffers, one read on the thread pool while the other is
// written (the only copy: read, then written); other ranges through one
// reused CHUNK-sized buffer. Writes are
// synchronous system calls (fastest for large sequential writes); the event
// loop gets a turn after every YIELD written, and the signal is checked
// after every CHUNK.
async function writePieces(artifact, fd, { onProgress, signal, path }) {
  const stage = takeStage();
  try {
    return await writeStaged(artifact, fd, stage, { onProgress, signal, path });
  } finally {
    spareStage = stage;
  }
}

// The staging buffer is kept for the next write: a fresh 256 KiB is a fresh
// mapping whose first touch costs 64 page faults (about 1 ms on a VM) per
// file written. Writes running at the same time each take their own.
const STAGE = 256 << 10;
let spareStage = null;

function takeStage() {
  const stage = spareStage ?? new Uint8Array(STAGE);
  spareStage = null;
  return stage;
}

async function writeStaged(artifact, fd, stage, { onProgress, signal, path }) {
  let staged = 0;
  let written = 0;
  let sinceYield = 0;
  const writeAll = (bytes) => {
    for (let done = 0; done < bytes.byteLength;) done += writeSync(fd, bytes, done, Math.min(IO_MAX, bytes.byteLength - done));
  };
  const flush = () => {
    if (staged) writeAll(stage.subarray(0, staged));
    staged = 0;
  };
  // Progress every CHUNK written (bytes in the file, not the staged ones),
  // each count reported once; a turn for the event loop every YIELD (each
  // turn costs time, and 64 MiB take well under 100 ms to write).
  let sinceReport = 0;
  let reported = -1;
  const tell = (bytesWritten) => {
    if (bytesWritten === reported) return;
    reported = bytesWritten;
    onProgress?.({ bytesWritten, totalBytes: artifact.size });
  };
  const report = async (n) => {
    written += n;
    sinceReport += n;
    sinceYield += n;
    if (sinceReport >= CHUNK) {
      sinceReport = 0;
      tell(written - staged);
      if (signal?.aborted) throw aborted(signal, path);
    }
    if (sinceYield >= YIELD) {
      sinceYield = 0;
      await new Promise(setImmediate);
      if (signal?.aborted) throw aborted(signal, path);
    }
  };
  // Bytes to go out in order: small ones staged, large ones written directly.
  const put = async (bytes) => {
    if (bytes.byteLength <= STAGE - staged) {
      stage.set(bytes, staged);  // copy of a small piece into the staging buffer
      staged += bytes.byteLength;
      await report(bytes.byteLength);
      return;
    }
    // A large piece: top the staged bytes up to a page boundary of the file
    // with its first bytes (a copy of < 4 KiB), so that the rest is written
    // from a page-aligned file offset (measurably faster for big writes).
    const top = Math.min(bytes.byteLength, (PAGE - (written % PAGE)) % PAGE);  // `written` counts staged bytes
    if (top > STAGE - staged) flush();
    stage.set(bytes.subarray(0, top), staged);
    staged += top;
    flush();
    await report(top);
    // The rest from where it is (no copy), CHUNK at a time (a multiple of
    // PAGE: offsets stay aligned), so that a 1 GiB byte array is reported
    // (and the signal checked) as it goes, not once at the end.
    for (let done = top; done < bytes.byteLength; done += CHUNK) {
      const part = bytes.subarray(done, Math.min(done + CHUNK, bytes.byteLength));
      writeAll(part);
      await report(part.byteLength);
    }
  };
  let buffer = null;  // for ranges without a view; allocated when first needed
  let pair = null;    // the two buffers of double-buffered file reads
  for (const p of artifact.pieces) {
    if (p.bytes) {
      await put(p.bytes);
    } else if (p.zeros !== undefined) {
      for (let left = p.zeros; left > 0;) {
        if (staged === STAGE) flush();
        const n = Math.min(left, STAGE - staged);
        stage.fill(0, staged, staged + n);
        staged += n;
        left -= n;
        await report(n);
      }
    } else {
      const view = p.entry.view(p.offset, p.length);
      if (view) {
        await put(view);
        continue;
      }
      if (p.entry.readInto) {
        // A file's range: read into one of two reused buffers on the thread
        // pool while the other is written here, so reading and writing
        // overlap (as a stream copy's do). The one copy: read, then written.
        // FILE_CHUNK is small enough that the bytes are still in cache when
        // written. (Reading 8 MiB synchronously, then writing it, made
        // `weights` of a 512 MiB checkpoint 1.2-1.4x a stream copy.)
        pair ??= [0, 1].map(() => new Uint8Array(Math.min(FILE_CHUNK, maxUnviewedRange(artifact))));
        const size = pair[0].byteLength;
        const readChunk = (k) => p.entry.readInto(pair[k % 2], 0, p.offset + k * size, Math.min(size, p.length - k * size));
        let pending = readChunk(0);
        try {
          for (let k = 0; k * size < p.length; ++k) {
            const bytes = await untilAborted(pending, signal, `writing ${path}`);
            const n = Math.min(size, p.length - k * size);
            pending = (k + 1) * size < p.length ? readChunk(k + 1) : null;
            await put(bytes.subarray(0, n));
          }
        } finally {
          pending?.catch(() => {});  // abandoned on a failed write or an abort: its error is not the one reported
        }
        continue;
      }
      buffer ??= new Uint8Array(Math.min(CHUNK, maxUnviewedRange(artifact)));
      for (let done = 0; done < p.length; done += buffer.byteLength) {
        const n = Math.min(buffer.byteLength, p.length - done);
        const chunk = p.entry.path !== undefined
          ? (p.entry.copyTo(buffer, 0, p.offset + done, n), buffer.subarray(0, n))  // sync read into the reused buffer
          : await untilAborted(p.entry.read(p.offset + done, n), signal, `writing ${path}`);
        await put(chunk);
      }
    }
  }
  flush();
  if (signal?.aborted) throw aborted(signal, path);
  tell(written);  // the last count, unless just reported
  return written;
}

function maxUnviewedRange(artifact) {
  let max = 1;
  for (const p of artifact.pieces) if (p.entry && p.length > max && !p.entry.view(p.offset, p.length)) max = p.length;
  return max;
}

// A Node Readable of the artifact (chunks of at most CHUNK bytes of file data).
export function nodeStream(artifact, options = {}) {
  return Readable.from(artifact.chunks(options), { objectMode: false, highWaterMark: 1 });
}
