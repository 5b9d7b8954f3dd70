// Turns anything byte-like into a Uint8Array view of the same memory: no copy.
import { invalidArgument } from './errors.mjs';

export function isBytes(value) {
  return value instanceof ArrayBuffer || ArrayBuffer.isView(value) ||
    (typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer);
}

export function toBytes(value, what = 'bytes') {
  const buffer = ArrayBuffer.isView(value) ? value.buffer : value;
  if (isBytes(value) && isDetached(buffer)) {
    throw invalidArgument(`${what} is a detached ArrayBuffer (transferred to a worker or freed); its bytes are gone`);
  }
  if (value instanceof Uint8Array) return value;
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer)) {
    return new Uint8Array(value);
  }
  throw invalidArgument(`${what} must be an ArrayBuffer or an ArrayBufferView (Uint8Array, Buffer, DataView, ...), got ${describe(value)}`);
}

// ArrayBuffer.prototype.detached where the engine has it (Node 22); else a
// zero-length view, which only a detached buffer refuses.
export function isDetached(buffer) {
  if (!(buffer instanceof ArrayBuffer)) return false;
  if (typeof buffer.detached === 'boolean') return buffer.detached;
  if (buffer.byteLength !== 0) return false;
  try {
    new Uint8Array(buffer, 0, 0);
    return false;
  } catch {
    return true;
  }
}

export function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an Array';
  if (typeof value === 'object') return value.constructor ? `a ${value.constructor.name}` : 'an object';
  return typeof value;
}
