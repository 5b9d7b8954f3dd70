// Progress of long writes, on stderr. On a terminal: one line redrawn in
// place, once the operation has taken over DELAY_MS (short commands stay
// quiet). Data streaming from URLs (`remote`) is shown on any stderr: a line
// at most every LINE_MS, and at the end. EXECUTORCH_PACK_PROGRESS=always|never
// overrides (always: shown at once, also when stderr is not a terminal).
import { fmtBytes, printable } from './format.mjs';

const DELAY_MS = 1000;
const REDRAW_MS = 100;
const LINE_MS = 1000;

// `files`: [{ path, size }] in the order they are written. A line names the
// file being written with its own bytes (a 672-byte .pte written after a
// 1 GiB .ptd reads "672 B of 672 B", not the run's total), and, when there
// are several files, where the whole run stands.
export function progressBar(files, { stream = process.stderr, env = process.env, remote = false } = {}) {
  const mode = env.EXECUTORCH_PACK_PROGRESS;
  const tty = Boolean(stream.isTTY);
  const enabled = mode === 'always' || (mode !== 'never' && (tty || remote));
  const delay = mode === 'always' || remote ? 0 : DELAY_MS;
  const every = tty ? REDRAW_MS : LINE_MS;
  const totalBytes = files.reduce((sum, f) => sum + f.size, 0);
  const start = Date.now();
  let last = -Infinity;
  let drawn = false;
  let shown = null;  // [file index, bytes] of the last line: never the same line twice
  return {
    // `index`: the file in `files`; `bytes`: written of it so far.
    update(index, bytes) {
      if (!enabled) return;
      const { path, size } = files[index];
      const now = Date.now();
      if (now - start < delay || (now - last < every && bytes < size)) return;
      if (shown && shown[0] === index && shown[1] === bytes) return;
      last = now;
      shown = [index, bytes];
      const share = (done, total) => (total > 0 ? ((100 * done) / total).toFixed(1) : '100.0');
      let line = `writing ${printable(path)}: ${fmtBytes(bytes)} of ${fmtBytes(size)} (${share(bytes, size)}%)`;
      if (files.length > 1) {
        const before = files.slice(0, index).reduce((sum, f) => sum + f.size, 0);
        line += `, file ${index + 1} of ${files.length}, ${fmtBytes(before + bytes)} of ${fmtBytes(totalBytes)} in all (${share(before + bytes, totalBytes)}%)`;
      }
      if (tty) {
        drawn = true;
        stream.write(`\r\u001b[K${line}`);
      } else {
        stream.write(`${line}\n`);
      }
    },
    // Clears the redrawn line (lines written to a file or pipe stay).
    done() {
      if (drawn) stream.write('\r\u001b[K');
      drawn = false;
    },
  };
}
