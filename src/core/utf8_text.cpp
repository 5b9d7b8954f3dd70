#include "core/utf8_text.h"

#include <cstdint>

namespace etpack {

size_t append_decoded_utf8(std::string_view bytes, std::string& out) {
  size_t units = 0;
  size_t i = 0;
  const size_t n = bytes.size();
  auto replacement = [&] {
    out.append("\xEF\xBF\xBD");
    ++units;
  };
  while (i < n) {
    const auto b = static_cast<uint8_t>(bytes[i]);
    if (b < 0x80) {
      // A run of ASCII (nearly every name) in one append.
      size_t end = i + 1;
      while (end < n && static_cast<uint8_t>(bytes[end]) < 0x80) ++end;
      out.append(bytes.data() + i, end - i);
      units += end - i;
      i = end;
      continue;
    }
    // The lead byte: how many continuation bytes follow, and the range the
    // first of them must lie in (no overlongs, surrogates or > U+10FFFF).
    size_t needed = 0;
    uint8_t lower = 0x80, upper = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) {
      needed = 1;
    } else if (b >= 0xE0 && b <= 0xEF) {
      needed = 2;
      if (b == 0xE0) lower = 0xA0;
      if (b == 0xED) upper = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      needed = 3;
      if (b == 0xF0) lower = 0x90;
      if (b == 0xF4) upper = 0x8F;
    } else {
      replacement();
      ++i;
      continue;
    }
    size_t seen = 0;
    while (seen < needed && i + 1 + seen < n) {
      const auto c = static_cast<uint8_t>(bytes[i + 1 + seen]);
      if (c < lower || c > upper) break;
      lower = 0x80;
      upper = 0xBF;
      ++seen;
    }
    if (seen < needed) {
      // The maximal subpart (lead and the continuation bytes that fit) is
      // one U+FFFD; the byte that broke it is read again as a new start.
      replacement();
      i += 1 + seen;
      continue;
    }
    out.append(bytes.data() + i, needed + 1);
    units += needed == 3 ? 2 : 1;  // four-byte sequences are surrogate pairs
    i += needed + 1;
  }
  return units;
}

size_t utf8_bytes_of_units(std::string_view text, size_t units) {
  size_t i = 0;
  while (units > 0 && i < text.size()) {
    const auto b = static_cast<uint8_t>(text[i]);
    const size_t length = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    units -= length == 4 && units >= 2 ? 2 : 1;
    i += length;
  }
  return i < text.size() ? i : text.size();
}

size_t utf8_sequence_length(std::string_view text, size_t i) {
  const auto c = static_cast<uint8_t>(text[i]);
  if (c < 0x80) return 1;
  size_t n;
  uint8_t lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) n = 1;
  else if (c == 0xE0) n = 2, lo = 0xA0;
  else if (c == 0xED) n = 2, hi = 0x9F;
  else if (c >= 0xE1 && c <= 0xEF) n = 2;
  else if (c == 0xF0) n = 3, lo = 0x90;
  else if (c >= 0xF1 && c <= 0xF3) n = 3;
  else if (c == 0xF4) n = 3, hi = 0x8F;
  else return 0;
  if (text.size() - i <= n) return 0;
  for (size_t k = 1; k <= n; ++k) {
    const auto b = static_cast<uint8_t>(text[i + k]);
    if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return 0;
  }
  return n + 1;
}

}  // namespace etpack
