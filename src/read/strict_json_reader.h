// Strict JSON as the safetensors header and index readers take it
// (safetensors_reader.cpp, safetensors_index.cpp): a JsonLexer whose every
// failure becomes one error code, naming the file and the byte offset in it,
// and strings whose escapes may not decode to a lone surrogate (the
// reference refuses those). The text itself must already have been checked
// as UTF-8 as a whole (first_invalid_utf8): plain strings are then views of
// it and need no second look.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "core/json_lexer.h"
#include "core/result.h"

namespace etpack {

class StrictJsonReader {
 public:
  // How failures read: `code`, "<file>: <what> at offset <base + pos>";
  // a lexer error is wrapped as "<not_json><its message><not_json_end>".
  struct Errors {
    ErrorCode code;
    uint64_t base;             // where the text starts in its file
    const char* not_json;      // e.g. "the header is not JSON ("
    const char* not_json_end;  // e.g. " of the header)"
  };

  // `text` must outlive the reader.
  StrictJsonReader(std::string_view text, std::string file, Errors errors)
      : lex_(text), file_(std::move(file)), errors_(errors) {}

  JsonLexer& lex() { return lex_; }

  // The error for `what` at text offset `pos`.
  Error fail(size_t pos, const std::string& what) const;
  // `s` unchanged when ok, else the lexer's error in this reader's words.
  Status json(Status s) const;

  // The next string token, decoded: a view of the text, or of the reader's
  // scratch when it has escapes (valid until the next string is read; see
  // decoded()). A lone surrogate escape fails.
  Result<std::string_view> string_view();
  Result<std::string> string() {
    ETP_ASSIGN(std::string_view s, string_view());
    return std::string(s);
  }
  // Whether `s` (from string_view()) lives in the scratch, not the text.
  bool decoded(std::string_view s) const { return !scratch_.empty() && s.data() == scratch_.data(); }

  // `{` members `}`: for each, the key (as string_view() gives it) and its
  // offset, then `member(key, key_at)` reads the value after the ':'.
  // Repeated keys are the caller's to refuse, in its own words.
  template <typename Member>
  Status object(Member&& member) {
    ETP_TRY(json(lex_.expect('{')));
    if (lex_.peek() == '}') return json(lex_.expect('}'));
    while (true) {
      if (lex_.peek() != '"') return fail(lex_.pos(), "expected a member name");
      const size_t key_at = lex_.pos();
      ETP_ASSIGN(std::string_view key, string_view());
      ETP_TRY(json(lex_.expect(':')));
      ETP_TRY(member(key, key_at));
      if (!next_item()) return json(lex_.expect('}'));
    }
  }

  // `[` items `]`: `item(i)` reads the i-th.
  template <typename Item>
  Status array(Item&& item) {
    ETP_TRY(json(lex_.expect('[')));
    if (lex_.peek() == ']') return json(lex_.expect(']'));
    for (size_t i = 0;; ++i) {
      ETP_TRY(item(i));
      if (!next_item()) return json(lex_.expect(']'));
    }
  }

 private:
  // Consumes a ',' if one comes next.
  bool next_item() {
    if (lex_.peek() != ',') return false;
    lex_.seek(lex_.pos() + 1);
    return true;
  }

  JsonLexer lex_;
  std::string file_;
  Errors errors_;
  std::string scratch_;
};

}  // namespace etpack
