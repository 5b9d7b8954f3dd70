// Compact JSON text (as write_json writes it: ", " and ": " separators)
// re-indented as JSON.stringify(value, null, 2) lays it out, streamed in
// chunks: for replies too large to be held twice (graph's JSON of a
// 100,000-instruction program is tens of MiB). Strings are copied byte for
// byte, escapes kept. The input is our own writer's text, never a file's.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string_view>

#include "core/cold_code.h"

namespace etpack {

class JsonIndenter {
 public:
  // `sink(bytes, size)` gets each chunk (at most kChunk bytes, valid only
  // during the call) and returns false to stop: push() then does nothing
  // more and stopped() is true. `depth`: the nesting the text starts at.
  using Sink = std::function<bool(const char*, size_t)>;
  static constexpr size_t kChunk = size_t{1} << 20;
  explicit JsonIndenter(Sink sink, int depth = 0) : sink_(std::move(sink)), depth_(depth) {}

  // Both out of line: built -O3 (cmake/wasm.cmake), and LTO would otherwise
  // inline them into the -Oz binding that calls them, loops and all.
  ETPACK_OUT_OF_LINE void raw(std::string_view text);  // written as is
  ETPACK_OUT_OF_LINE void push(std::string_view text);  // re-indented
  void flush();
  bool stopped() const { return stopped_; }

 private:
  // Room for `n` more bytes (a flush when the chunk would overflow).
  void room(size_t n) {
    if (at_ + n > kChunk) flush();
  }

  Sink sink_;
  // at_ bytes in use; kSlack more than a chunk, as push() writes an
  // indentation's spaces 8 at a time, up to 7 past its end.
  static constexpr size_t kSlack = 8;
  std::unique_ptr<char[]> buffer_ = std::make_unique<char[]>(kChunk + kSlack);
  size_t at_ = 0;
  int depth_;
  bool in_string_ = false, escaped_ = false, pending_open_ = false, stopped_ = false;
};

}  // namespace etpack
