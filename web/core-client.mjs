// The page's side of core-worker.mjs: one worker per page, started on first
// use, answering calls in turn. `coreCall(op, message, onPage)` resolves
// with the worker's result; the core's errors come back as they are (an
// Error with its code). A page where no worker can start (or one that
// fails to load the core) runs `onPage()` on its own thread instead.
import { isPacked, unpackResult } from './core-pack.mjs';

let worker = null;
let failed = false;
let nextId = 0;
let ranIn = null;  // where the last call ran: 'worker' or 'page'
const pending = new Map();  // id -> { resolve, reject }

function start() {
  if (worker || failed || typeof Worker !== 'function') return worker;
  try {
    worker = new Worker(new URL('./core-worker.mjs', import.meta.url), { type: 'module' });
  } catch {
    failed = true;
    return null;
  }
  worker.onmessage = ({ data }) => {
    const call = pending.get(data.id);
    if (!call) return;
    pending.delete(data.id);
    if (data.error) call.reject(Object.assign(new Error(data.error.message), { code: data.error.code ?? undefined, fromCore: true }));
    else call.resolve(isPacked(data.result) ? unpackResult(data.result) : data.result);
  };
  // The worker itself failed (its module did not load, it ran out of
  // memory): every call waiting falls back to the page.
  worker.onerror = (e) => {
    e.preventDefault?.();
    failed = true;
    worker.terminate();
    worker = null;
    for (const call of pending.values()) call.reject(new Error(e.message || 'the core worker failed'));
    pending.clear();
  };
  return worker;
}

// `message`: the call's fields (structured-cloneable: bytes, Blobs, plain
// data); `transfer`: buffers handed over rather than copied.
export async function coreCall(op, message, onPage, transfer = []) {
  const w = start();
  if (w) {
    try {
      const result = await new Promise((resolve, reject) => {
        const id = ++nextId;
        pending.set(id, { resolve, reject });
        w.postMessage({ ...message, id, op }, transfer);
      });
      ranIn = 'worker';
      return result;
    } catch (e) {
      if (e.fromCore) {
        ranIn = 'worker';
        throw e;
      }
    }
  }
  ranIn = 'page';
  return onPage();
}

// Where the last call ran (the validator page says it: tests read it).
export const lastRanIn = () => ranIn;
