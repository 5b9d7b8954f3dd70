#include "core/json_indent.h"

#include <algorithm>
#include <cstring>

namespace etpack {

void JsonIndenter::flush() {
  if (at_ && !stopped_ && !sink_(buffer_.data(), at_)) stopped_ = true;
  at_ = 0;
}

void JsonIndenter::newline() {
  const size_t n = 1 + 2 * static_cast<size_t>(depth_ > 0 ? depth_ : 0);
  if (n > kChunk) return;  // never: our replies nest a few levels
  room(n);
  buffer_[at_] = '\n';
  std::memset(&buffer_[at_ + 1], ' ', n - 1);
  at_ += n;
}

void JsonIndenter::raw(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    room(1);
    const size_t n = std::min(text.size() - i, kChunk - at_);
    std::memcpy(&buffer_[at_], text.data() + i, n);
    at_ += n, i += n;
  }
}

void JsonIndenter::push(std::string_view text) {
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end && !stopped_) {
    if (in_string_) {
      // The string's bytes up to its closing quote, copied as a run. The
      // escape state is a local while it scans: as a member, every byte
      // read (a char, which may alias it) reloaded and stored it.
      const char* q = p;
      bool escaped = escaped_;
      for (; q < end; ++q) {
        if (escaped) escaped = false;
        else if (*q == '\\') escaped = true;
        else if (*q == '"') break;
      }
      escaped_ = escaped;
      const bool closed = q < end;
      raw(std::string_view(p, static_cast<size_t>(q - p) + (closed ? 1 : 0)));
      if (closed) in_string_ = false;
      p = closed ? q + 1 : q;
      continue;
    }
    const char c = *p++;
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') continue;
    if (pending_open_) {
      pending_open_ = false;
      if (c == '}' || c == ']') {
        --depth_;
        room(1);
        buffer_[at_++] = c;
        continue;
      }
      newline();
    }
    room(2);
    switch (c) {
      case '{':
      case '[':
        buffer_[at_++] = c;
        ++depth_;
        pending_open_ = true;
        break;
      case '}':
      case ']':
        --depth_;
        newline();
        room(1);
        buffer_[at_++] = c;
        break;
      case ',':
        buffer_[at_++] = c;
        newline();
        break;
      case ':':
        buffer_[at_++] = c;
        buffer_[at_++] = ' ';
        break;
      default:
        if (c == '"') in_string_ = true;
        buffer_[at_++] = c;
    }
  }
}

}  // namespace etpack
