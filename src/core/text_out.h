// Text appended to a std::string through a small buffer, for writers that
// make tens of MiB out of millions of short pieces (graph's JSON: ~25 per
// node, ~10 per edge). std::string's append is out of line in libc++, and in
// the wasm build each piece also went through strlen and a memcpy call: half
// of graph's time (issue 42). Here a piece is copied into the buffer 8 bytes
// at a time and the string grows once per kSize bytes. The functions that
// copy are out of line: built -O3 (cmake/wasm.cmake) for -Oz callers, which
// LTO would otherwise inline them into, their loops then built for size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "core/cold_code.h"

namespace etpack {

class Json;

class TextOut {
 public:
  // Appends to `out`, which must outlive this writer and not be written
  // otherwise until flush() (the destructor flushes).
  explicit TextOut(std::string& out) : out_(&out) {}
  // Gives the text to `sink` in pieces of at most kSize bytes (valid only
  // during the call), at each flush() (one when the buffer is full).
  using Sink = std::function<void(const char*, size_t)>;
  explicit TextOut(Sink sink) : sink_(std::move(sink)) {}
  ~TextOut() { flush(); }
  TextOut(const TextOut&) = delete;
  TextOut& operator=(const TextOut&) = delete;

  ETPACK_OUT_OF_LINE void raw(const char* s, size_t n);
  void raw(std::string_view s) { raw(s.data(), s.size()); }
  template <size_t N>
  void lit(const char (&s)[N]) { raw(s, N - 1); }
  void put(char c) {
    if (at_ == kSize) flush();
    buf_[at_++] = c;
  }
  ETPACK_OUT_OF_LINE void number(int64_t v);
  ETPACK_OUT_OF_LINE void unsigned_number(uint64_t v);
  // A JSON string token, escaped as write_json_string escapes it.
  ETPACK_OUT_OF_LINE void json_string(std::string_view s);
  // A value as write_json writes it.
  void json(const Json& v);
  // The buffered bytes appended to the string.
  void flush() {
    if (at_ && out_) out_->append(buf_, at_);
    else if (at_) sink_(buf_, at_);
    at_ = 0;
  }

 private:
  static constexpr size_t kSize = 4096;
  std::string* out_ = nullptr;
  Sink sink_;
  size_t at_ = 0;
  char buf_[kSize];
};

}  // namespace etpack
