// NaN bits across the JavaScript boundary. A JS Number keeps only one NaN
// reliably (engines may canonicalize any other, e.g. in double arrays), yet
// a program's Double may hold −NaN or a signalling NaN with a payload,
// which upstream keeps. So a NaN other than the canonical quiet one
// (0x7ff8000000000000: what JavaScript, Python and the C++ library write
// for NaN) travels as the marker string "\0B" + its 16 lowercase hex digits
// (the bit pattern, most significant first); the JS side shows it as
// { nanBits: '<16 hex digits>' } (npm/src/marshal/nan-bits.mjs).
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace etpack {

constexpr uint64_t kCanonicalNanBits = 0x7ff8000000000000ull;

inline uint64_t bits_of_double(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return bits;
}

inline double double_of_bits(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

inline bool is_nan_bits(uint64_t bits) {
  return (bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (bits & 0x000fffffffffffffull) != 0;
}

// The 16 hex digits of a NaN other than the canonical one; nullopt for any
// other double.
inline std::optional<std::string> noncanonical_nan_hex(double d) {
  uint64_t bits = bits_of_double(d);
  if (!is_nan_bits(bits) || bits == kCanonicalNanBits) return std::nullopt;
  static const char kDigits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, bits >>= 4) out[static_cast<size_t>(i)] = kDigits[bits & 0xf];
  return out;
}

// The double of a "\0B" + 16 hex digits marker (`text` includes the "\0B"),
// if it is one and the bits are a NaN.
inline std::optional<double> double_of_nan_marker(std::string_view text) {
  if (text.size() != 18 || text[0] != '\0' || text[1] != 'B') return std::nullopt;
  uint64_t bits = 0;
  for (size_t i = 2; i < 18; ++i) {
    const char c = text[i];
    const int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (v < 0) return std::nullopt;
    bits = (bits << 4) | static_cast<uint64_t>(v);
  }
  if (!is_nan_bits(bits)) return std::nullopt;
  return double_of_bits(bits);
}

}  // namespace etpack
