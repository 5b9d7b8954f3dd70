// Progress of long writes, on stderr. On a terminal: one line redrawn in
// place, once the operation has taken over DELAY_MS (short commands stay
// quiet). Data streaming from URLs (`remote`) is shown on any stderr: a line
// at most every LINE_MS, and at the end. EXECUTORCH_PACK_PROGRESS=always|never
// overrides (always: shown at once, also when stderr is not a terminal).
import { fmtBytes, printable } from './format.mjs';

const DELAY_MS = 1000;
const REDRAW_MS = 100;
const LINE_MS = 1000;

export function progressBar(totalBytes, { stream = process.stderr, env = process.env, remote = false } = {}) {
  const mode = env.EXECUTORCH_PACK_PROGRESS;
  const tty = Boolean(stream.isTTY);
  const enabled = mode === 'always' || (mode !== 'never' && (tty || remote));
  const delay = mode === 'always' || remote ? 0 : DELAY_MS;
  const every = tty ? REDRAW_MS : LINE_MS;
  const start = Date.now();
  let last = -Infinity;
  let drawn = false;
  return {
    // `name`: the file being written; `bytes`: written so far over all files.
    update(name, bytes) {
      if (!enabled) return;
      const now = Date.now();
      if (now - start < delay || (now - last < every && bytes < totalBytes)) return;
      last = now;
      const share = totalBytes > 0 ? ((100 * bytes) / totalBytes).toFixed(1) : '100.0';
      const line = `writing ${printable(name)}: ${fmtBytes(bytes)} of ${fmtBytes(totalBytes)} (${share}%)`;
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
