#include "core/json_indent.h"

#include <algorithm>
#include <cstring>

namespace etpack {
namespace {

// n bytes from s to d, 8 at a time: fixed-size copies are single loads and
// stores, where a memcpy call per short run (a string, an indentation) was
// most of the indenter's time in the wasm build.
inline void copy_bytes(char* d, const char* s, size_t n) {
  for (; n >= 8; n -= 8, s += 8, d += 8) std::memcpy(d, s, 8);
  for (; n; --n) *d++ = *s++;
}

}  // namespace

void JsonIndenter::flush() {
  if (at_ && !stopped_ && !sink_(buffer_.get(), at_)) stopped_ = true;
  at_ = 0;
}

void JsonIndenter::raw(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    room(1);
    const size_t n = std::min(text.size() - i, kChunk - at_);
    copy_bytes(buffer_.get() + at_, text.data() + i, n);
    at_ += n, i += n;
  }
}

// The state lives in locals while it runs (a char stored through the
// buffer may alias any member, so members would be reloaded after every
// byte) and is written back around each flush and at the end.
void JsonIndenter::push(std::string_view text) {
  const char* p = text.data();
  const char* const end = p + text.size();
  char* const buf = buffer_.get();
  size_t at = at_;
  int depth = depth_;
  bool in_string = in_string_, escaped = escaped_, pending_open = pending_open_;
  // Room for n more bytes: a flush when the chunk would overflow.
  const auto room = [&](size_t n) {
    if (at + n <= kChunk) return;
    at_ = at;
    flush();
    at = 0;
  };
  const auto newline = [&] {
    const size_t n = 1 + 2 * static_cast<size_t>(depth > 0 ? depth : 0);
    if (n > kChunk) return;  // never: our replies nest a few levels
    room(n);
    static const char kSpaces[8] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
    buf[at] = '\n';
    for (size_t k = 1; k < n; k += 8) std::memcpy(buf + at + k, kSpaces, 8);  // up to 7 past: the slack
    at += n;
  };
  while (p < end && !stopped_) {
    if (in_string) {
      // The string's bytes up to its closing quote, copied as a run.
      const char* q = p;
      for (; q < end; ++q) {
        if (escaped) escaped = false;
        else if (*q == '\\') escaped = true;
        else if (*q == '"') break;
      }
      const bool closed = q < end;
      size_t n = static_cast<size_t>(q - p) + (closed ? 1 : 0);
      while (n) {  // as raw(), with the local state
        room(1);
        const size_t k = std::min(n, kChunk - at);
        copy_bytes(buf + at, p, k);
        at += k, p += k, n -= k;
      }
      if (closed) in_string = false;
      continue;
    }
    const char c = *p++;
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') continue;
    if (pending_open) {
      pending_open = false;
      if (c == '}' || c == ']') {
        --depth;
        room(1);
        buf[at++] = c;
        continue;
      }
      newline();
    }
    room(2);
    switch (c) {
      case '{':
      case '[':
        buf[at++] = c;
        ++depth;
        pending_open = true;
        break;
      case '}':
      case ']':
        --depth;
        newline();
        room(1);
        buf[at++] = c;
        break;
      case ',':
        buf[at++] = c;
        newline();
        break;
      case ':':
        buf[at++] = c;
        buf[at++] = ' ';
        break;
      default:
        if (c == '"') in_string = true;
        buf[at++] = c;
    }
  }
  at_ = at;
  depth_ = depth;
  in_string_ = in_string, escaped_ = escaped, pending_open_ = pending_open;
}

}  // namespace etpack
