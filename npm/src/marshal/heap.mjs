// The wasm heap, the one place JavaScript reads or writes the module's
// memory. Pointers from the core are unsigned (`>>> 0`: past 2 GiB they come
// back negative), and HEAPU8 is re-read on every use because memory growth
// detaches the old view.
import { EtpackError } from '../errors.mjs';

const ENCODER = new TextEncoder();
const DECODER = new TextDecoder();

// Bytes of heap the instance holds (its memory, not what is in use).
export const heapBytes = (module) => module.HEAPU8.byteLength;

// A copy of heap bytes that outlives the call (a fresh array: the heap may
// move or be reused once the Output is freed).
export function heapCopy(module, ptr, len) {
  const at = ptr >>> 0;
  return module.HEAPU8.slice(at, at + len);
}

// A view of heap bytes: only while the Output that owns them lives and
// nothing calls into wasm (which could grow and move the heap).
export function heapView(module, ptr, len) {
  const at = ptr >>> 0;
  return module.HEAPU8.subarray(at, at + len);
}

// Filled in by the Node entry (index.node.mjs): `asciiText(view)`, the
// string of bytes that are all ASCII, or undefined for any other bytes.
export const textHooks = { asciiText: null };

// UTF-8 text of the heap decoded in place into a JS string (no copy of the
// bytes first). TextDecoder everywhere, but in Node text that is all ASCII
// (nearly every reply: names are ASCII) is read byte for byte: Node 20's
// TextDecoder makes P1's 2.2 MB reply in 9.5 ms, a Latin-1 read of it takes
// 0.2 ms and the ASCII test 0.16 ms (program-reply.mjs).
export function heapText(module, ptr, len) {
  const view = heapView(module, ptr, len);
  return textHooks.asciiText?.(view) ?? DECODER.decode(view);
}

// Copies bytes into the heap (the small heads of files the core parses, a
// program's text or stream) and frees them when the call is over. Programs
// are reported to onProgram(length), which lets the heap such a program
// needs outlive the call (instance.mjs).
export class HeapCopies {
  constructor(module, onProgram = null) {
    this.module = module;
    this.onProgram = onProgram;
    this.pointers = [];
  }
  // One copy of `bytes` into the heap: the core must read them there.
  put(bytes) {
    const ptr = this.module._malloc(Math.max(1, bytes.byteLength)) >>> 0;
    if (ptr === 0) throw new EtpackError('OUT_OF_MEMORY', `executorch-pack: no room for ${bytes.byteLength} bytes in the wasm heap`);
    this.module.HEAPU8.set(bytes, ptr);
    this.pointers.push(ptr);
    return { ptr, len: bytes.byteLength };
  }
  // Bytes [offset, offset + size) of an entry, read straight into the heap
  // (one copy: a head of a file on disk is never also held in a JS array).
  putFrom(entry, offset, size) {
    const view = entry.view(offset, size);
    if (view) return this.put(view);
    const ptr = this.module._malloc(Math.max(1, size)) >>> 0;
    if (ptr === 0) throw new EtpackError('OUT_OF_MEMORY', `executorch-pack: no room for ${size} bytes in the wasm heap`);
    this.pointers.push(ptr);
    entry.copyTo(this.module.HEAPU8, ptr, offset, size);  // nothing allocates in the heap while it reads
    return { ptr, len: size };
  }
  // A program in a binary form (see putText for JSON text).
  putProgram(bytes) {
    this.onProgram?.(bytes.byteLength);
    return this.put(bytes);
  }
  // Text as UTF-8 in the heap, encoded straight into it (TextEncoder's
  // encodeInto: no intermediate array; far faster than embind's conversion).
  // `text` may be an array of pieces, written one after the other (see
  // programPieces). Room for ASCII first; text with other characters is
  // encoded again into room for the worst case (3 bytes per UTF-16 unit).
  putText(text) {
    const pieces = typeof text === 'string' ? [text] : text;
    let length = 0;
    for (const piece of pieces) length += piece.length;
    this.onProgram?.(length);
    for (const room of [length, length * 3]) {
      const ptr = this.module._malloc(Math.max(1, room)) >>> 0;
      if (ptr === 0) throw new EtpackError('OUT_OF_MEMORY', `executorch-pack: no room for ${room} bytes of program text in the wasm heap`);
      this.pointers.push(ptr);
      let len = 0;
      let whole = true;
      for (const piece of pieces) {
        const { read, written } = ENCODER.encodeInto(piece, this.module.HEAPU8.subarray(ptr + len, ptr + room));
        len += written;
        if (read !== piece.length) {
          whole = false;
          break;
        }
      }
      if (whole) return { ptr, len };
    }
    throw new Error('executorch-pack: TextEncoder did not encode the whole text');
  }
  free() {
    for (const ptr of this.pointers) this.module._free(ptr);
    this.pointers = [];
  }
}
