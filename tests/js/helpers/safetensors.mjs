// safetensors files written by tests, by hand (independent of the package's
// writer): 8-byte LE header length, JSON header, data.
export function safetensorsBytes(tensors, { metadata = null, header: override = null, pad = true } = {}) {
  const header = {};
  if (metadata) header.__metadata__ = metadata;
  let at = 0;
  for (const t of tensors) {
    Object.defineProperty(header, t.name, {
      value: { dtype: t.dtype, shape: t.shape, data_offsets: [at, at + t.bytes.byteLength] }, enumerable: true,
    });
    at += t.bytes.byteLength;
  }
  // A string override is the header text as it is (e.g. with duplicate keys).
  let text = typeof override === 'string' ? override : JSON.stringify(override ?? header);
  if (pad) while ((Buffer.byteLength(text) % 8) !== 0) text += ' ';
  const json = Buffer.from(text);
  const out = Buffer.alloc(8 + json.byteLength + at);
  out.writeBigUInt64LE(BigInt(json.byteLength), 0);
  json.copy(out, 8);
  let o = 8 + json.byteLength;
  for (const t of tensors) {
    Buffer.from(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength).copy(out, o);
    o += t.bytes.byteLength;
  }
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

export function float32(values) {
  return new Uint8Array(Float32Array.from(values).buffer);
}
