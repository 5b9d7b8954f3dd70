#include "core/text_out.h"

#include <algorithm>
#include <cstring>

#include "core/json.h"

namespace etpack {

void TextOut::raw(const char* s, size_t n) {
  if (n > kSize - at_) {
    flush();
    if (n > kSize) {  // longer than the buffer: appended as it is
      if (out_) out_->append(s, n);
      else for (; n; s += kSize, n -= std::min(n, kSize)) sink_(s, std::min(n, kSize));
      return;
    }
  }
  char* d = buf_ + at_;
  at_ += n;
  // Fixed-size copies are single unaligned loads and stores, never a call.
  for (; n >= 8; n -= 8, s += 8, d += 8) std::memcpy(d, s, 8);
  for (; n; --n) *d++ = *s++;
}

void TextOut::unsigned_number(uint64_t v) {
  char digits[20];
  size_t n = 0;
  do {
    digits[sizeof digits - ++n] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  raw(digits + sizeof digits - n, n);
}

void TextOut::number(int64_t v) {
  if (v < 0) {
    put('-');
    unsigned_number(0 - static_cast<uint64_t>(v));
    return;
  }
  unsigned_number(static_cast<uint64_t>(v));
}

void TextOut::json_string(std::string_view s) {
  put('"');
  size_t run = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;  // written as it is
    raw(s.data() + run, i - run);
    std::string escaped;
    write_json_string_byte(c, escaped);
    raw(escaped);
    run = i + 1;
  }
  raw(s.data() + run, s.size() - run);
  put('"');
}

void TextOut::json(const Json& v) {
  if (out_) {
    flush();
    write_json(v, *out_);
    return;
  }
  std::string text;
  write_json(v, text);
  raw(text);
}

}  // namespace etpack
