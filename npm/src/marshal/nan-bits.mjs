// NaN bits across the boundary (src/core/nan_bits.h). A Number keeps one
// NaN reliably; any other NaN (−NaN, a signalling NaN, a payload) is the
// object { nanBits: '<16 hex digits>' }: the bit pattern, most significant
// digit first. The core sends it as the marker "\0B<hex>" and takes the same
// marker back; a Number NaN is the canonical quiet NaN (7ff8000000000000).
const HEX16 = /^[0-9a-fA-F]{16}$/;

export const nanBitsValue = (hex) => ({ nanBits: hex });

// A { nanBits } value: a plain object with that one key, 16 hex digits of
// a NaN (exponent all ones, mantissa not zero).
export function isNanBits(v) {
  if (v === null || typeof v !== 'object' || typeof v.nanBits !== 'string' || !HEX16.test(v.nanBits)) return false;
  const keys = Object.keys(v);
  if (keys.length !== 1) return false;
  const bits = BigInt(`0x${v.nanBits}`);
  return (bits & 0x7ff0000000000000n) === 0x7ff0000000000000n && (bits & 0x000fffffffffffffn) !== 0n;
}

// The marker the core reads for a { nanBits } value.
export const nanBitsMarker = (v) => `\u0000B${v.nanBits.toLowerCase()}`;
