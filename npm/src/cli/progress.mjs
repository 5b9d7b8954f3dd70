// Progress of long writes, on stderr, redrawn in place: only when stderr is
// a terminal and the operation has already taken over DELAY_MS (short
// commands stay quiet). EXECUTORCH_PACK_PROGRESS=always|never overrides
// (always: shown at once, also when stderr is not a terminal).
import { fmtBytes, printable } from './format.mjs';

const DELAY_MS = 1000;
const REDRAW_MS = 100;

export function progressBar(totalBytes, { stream = process.stderr, env = process.env } = {}) {
  const mode = env.EXECUTORCH_PACK_PROGRESS;
  const enabled = mode === 'always' || (mode !== 'never' && Boolean(stream.isTTY));
  const delay = mode === 'always' ? 0 : DELAY_MS;
  const start = Date.now();
  let lastDraw = -Infinity;
  let drawn = false;
  return {
    // `name`: the file being written; `bytes`: written so far over all files.
    update(name, bytes) {
      if (!enabled) return;
      const now = Date.now();
      if (now - start < delay || (now - lastDraw < REDRAW_MS && bytes < totalBytes)) return;
      lastDraw = now;
      drawn = true;
      const share = totalBytes > 0 ? Math.floor((bytes / totalBytes) * 100) : 100;
      stream.write(`\r\u001b[Kwriting ${printable(name)}: ${share}% (${fmtBytes(bytes)} of ${fmtBytes(totalBytes)})`);
    },
    done() {
      if (drawn) stream.write('\r\u001b[K');
    },
  };
}
