// JSON tokens over a text buffer: the one tokenizer behind the JSON document
// parser (core/json.h) and the schema-directed program reader
// (model/json_table_reader.cpp). Accepts Python's bare NaN, Infinity and
// -Infinity as numbers. Errors are kInvalidJson naming the byte offset.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"

namespace etpack {

class JsonLexer {
 public:
  explicit JsonLexer(std::string_view text) : s_(text) {}

  size_t pos() const { return pos_; }
  void seek(size_t pos) { pos_ = pos; }
  bool at_end() {
    skip_ws();
    return pos_ >= s_.size();
  }

  // The hot calls are inline: the program reader makes millions of them.
  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t')) ++pos_;
  }
  // Next non-space character, or '\0' at the end (not consumed).
  char peek() {
    skip_ws();
    return pos_ < s_.size() ? s_[pos_] : '\0';
  }
  Status expect(char c) {
    if (peek() == c) {
      ++pos_;
      return {};
    }
    return expected(c);  // out of line: keeps this call small enough to inline
  }
  // Consumes `word` (e.g. "null") if it comes next.
  bool consume(std::string_view word) {
    skip_ws();
    // First character first: most calls ask for a word that is not there.
    if (pos_ >= s_.size() || s_[pos_] != word[0] || s_.compare(pos_, word.size(), word) != 0) return false;
    pos_ += word.size();
    return true;
  }

  // A string token. Plain strings come back as a view into the text;
  // strings with escapes are decoded into `scratch` and viewed from there.
  Result<std::string_view> string_token(std::string& scratch);
  // A number token's text (JSON grammar, or NaN/Infinity/-Infinity).
  Result<std::string_view> number_token();
  // Skips one value of any kind; `depth` bounds nesting.
  Status skip_value(size_t depth, size_t max_depth);
  // Skips a string token without decoding it (errors as string_token's).
  Status skip_string();

  Error error(const std::string& what) const;
  Error expected(char c) const;

 private:
  Status hex4(uint32_t& cp);
  std::string_view s_;
  size_t pos_ = 0;
};

void append_utf8(std::string& out, uint32_t code_point);

}  // namespace etpack
