// Compact JSON bytes (the core's text: ", " and ": " separators) re-indented
// as JSON.stringify(value, null, 2) lays it out, streamed: `write(chunk)`
// gets Uint8Array chunks of at most CHUNK bytes, each valid only during the
// call. For replies too big to become JS objects first (graph's JSON of a
// 100,000-instruction program: the objects cost several times the text).
// Strings are copied byte for byte, so the text's escapes are kept.
const CHUNK = 1 << 20;
const NL = 0x0a, SPACE = 0x20, QUOTE = 0x22, BACKSLASH = 0x5c, COMMA = 0x2c, COLON = 0x3a;
const OPEN_OBJECT = 0x7b, CLOSE_OBJECT = 0x7d, OPEN_ARRAY = 0x5b, CLOSE_ARRAY = 0x5d;

export class JsonIndenter {
  // depth: the nesting the text starts at (its indentation, 2 spaces a level).
  constructor(write, depth = 0) {
    this.write = write;
    this.buffer = new Uint8Array(CHUNK);
    this.at = 0;
    this.depth = depth;
    this.inString = false;
    this.escaped = false;
    this.pendingOpen = false;  // a container just opened: empty ones stay "[]" / "{}"
  }

  // Makes room for `n` more bytes.
  room(n) {
    if (this.at + n > this.buffer.length) this.flush();
  }

  flush() {
    if (this.at) this.write(this.buffer.subarray(0, this.at));
    this.at = 0;
  }

  newline() {
    const n = 1 + 2 * this.depth;
    this.room(n + 2);  // and the 1-2 bytes written after it
    const b = this.buffer;
    b[this.at++] = NL;
    b.fill(SPACE, this.at, this.at + n - 1);
    this.at += n - 1;
  }

  // Raw bytes (ASCII text written as is).
  raw(text) {
    for (let i = 0; i < text.length; ++i) {
      this.room(1);
      this.buffer[this.at++] = text.charCodeAt(i);
    }
  }

  push(bytes) {
    const b = this.buffer;
    const n = bytes.length;
    for (let i = 0; i < n; ++i) {
      const c = bytes[i];
      if (this.at >= b.length - 1) this.flush();
      if (this.inString) {
        b[this.at++] = c;
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) this.inString = false;
        continue;
      }
      if (c === SPACE || c === NL || c === 0x09 || c === 0x0d) continue;
      if (this.pendingOpen) {
        this.pendingOpen = false;
        if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
          --this.depth;
          b[this.at++] = c;
          continue;
        }
        this.newline();
      }
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        b[this.at++] = c;
        ++this.depth;
        this.pendingOpen = true;
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        --this.depth;
        this.newline();
        this.room(1);
        this.buffer[this.at++] = c;
      } else if (c === COMMA) {
        b[this.at++] = c;
        this.newline();
      } else if (c === COLON) {
        b[this.at++] = c;
        b[this.at++] = SPACE;
      } else {
        if (c === QUOTE) this.inString = true;
        b[this.at++] = c;
      }
    }
  }
}
