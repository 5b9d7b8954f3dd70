#include "core/glob.h"

namespace etpack {
namespace {

constexpr size_t kNone = std::string_view::npos;

// Bytes of the code point starting at text[i] (1 for a stray byte).
size_t code_point_bytes(std::string_view text, size_t i) {
  size_t n = 1;
  while (i + n < text.size() && (static_cast<unsigned char>(text[i + n]) & 0xC0) == 0x80 && n < 4) ++n;
  return n;
}

// If `piece` (no '*') matches text at `at`, the end of the match; else kNone.
size_t match_at(std::string_view piece, std::string_view text, size_t at) {
  size_t t = at;
  for (size_t p = 0; p < piece.size(); ++p) {
    if (t >= text.size()) return kNone;
    if (piece[p] == '?') {
      t += code_point_bytes(text, t);
    } else {
      if (piece[p] != text[t]) return kNone;
      ++t;
    }
  }
  return t;
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view text) {
  const size_t first_star = pattern.find('*');
  if (first_star == kNone) return match_at(pattern, text, 0) == text.size();
  // The piece before the first '*' is anchored at the start.
  size_t t = match_at(pattern.substr(0, first_star), text, 0);
  if (t == kNone) return false;
  const size_t last_star = pattern.rfind('*');
  // Middle pieces: leftmost placement leaves the most room for the rest.
  size_t p = first_star + 1;
  while (p <= last_star) {
    const size_t next_star = pattern.find('*', p);
    const std::string_view piece = pattern.substr(p, next_star - p);
    p = next_star + 1;
    if (piece.empty()) continue;
    size_t end = kNone;
    for (size_t start = t; start < text.size(); start += code_point_bytes(text, start))
      if ((end = match_at(piece, text, start)) != kNone) break;
    if (end == kNone) return false;
    t = end;
  }
  // The piece after the last '*' is anchored at the end: try the start
  // positions from which it ends exactly at the end of the text.
  const std::string_view tail = pattern.substr(last_star + 1);
  if (tail.empty()) return true;
  for (size_t start = t; start <= text.size(); start += start < text.size() ? code_point_bytes(text, start) : 1)
    if (match_at(tail, text, start) == text.size()) return true;
  return false;
}

}  // namespace etpack
