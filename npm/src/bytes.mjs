// Turns anything byte-like into a Uint8Array view of the same memory: no copy.
import { invalidArgument } from './errors.mjs';

export function isBytes(value) {
  return value instanceof ArrayBuffer || ArrayBuffer.isView(value) ||
    (typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer);
}

export function toBytes(value, what = 'bytes') {
  if (value instanceof Uint8Array) return value;
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer)) {
    return new Uint8Array(value);
  }
  throw invalidArgument(`${what} must be an ArrayBuffer or an ArrayBufferView (Uint8Array, Buffer, DataView, ...), got ${describe(value)}`);
}

export function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an Array';
  if (typeof value === 'object') return value.constructor ? `a ${value.constructor.name}` : 'an object';
  return typeof value;
}
