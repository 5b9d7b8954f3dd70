// Text: the reply text's writer (ops/program_reply.cpp).
#pragma once

#include <algorithm>
#include <charconv>
#include <cstring>
#include <string>
#include <string_view>

namespace etpack {

// The reply text, written through an index into a string kept at its
// capacity: libc++'s push_back and append are out-of-line calls in the wasm
// build (a fifth of the writer's time); these inline to stores.
class Text {
 public:
  Text(std::string& s, size_t reserve) : s_(s), n_(s.size()) { s_.resize(n_ + reserve); }
  ~Text() { s_.resize(n_); }
  Text(const Text&) = delete;
  Text& operator=(const Text&) = delete;

  size_t size() const { return n_; }
  void push_back(char c) {
    room(1)[0] = c;
    ++n_;
  }
  Text& operator+=(std::string_view v) {
    std::memcpy(room(v.size()), v.data(), v.size());
    n_ += v.size();
    return *this;
  }
  Text& operator+=(const char* c) { return *this += std::string_view(c); }
  void truncate(size_t n) { n_ = n; }  // n <= size()
  template <typename Int>
  void append_integer(Int v) {
    char* p = room(24);
    n_ += static_cast<size_t>(std::to_chars(p, p + 24, v).ptr - p);
  }

 private:
  char* room(size_t k) {
    if (s_.size() - n_ < k) s_.resize(std::max(s_.size() * 2, n_ + k));
    return s_.data() + n_;
  }

  std::string& s_;
  size_t n_;
};

}  // namespace etpack
