#include "read/strict_json_reader.h"

#include "read/safetensors_reader.h"

namespace etpack {

Error StrictJsonReader::fail(size_t pos, const std::string& what) const {
  return make_error(errors_.code, file_ + ": " + what + " at offset " + std::to_string(errors_.base + pos));
}

Status StrictJsonReader::json(Status s) const {
  if (s.ok()) return s;
  return fail(lex_.pos(), errors_.not_json + s.error().message + errors_.not_json_end);
}

Result<std::string_view> StrictJsonReader::string_view() {
  auto token = lex_.string_token(scratch_);
  if (!token.ok()) return json(token.take_error()).take_error();
  const std::string_view s = *token;
  // A plain string is part of the text, already checked; escapes decode to
  // UTF-8 but a lone \udxxx becomes a surrogate's bytes.
  if (decoded(s) && first_invalid_utf8(s) != std::string_view::npos)
    return fail(lex_.pos(), "a string holds a lone surrogate escape");
  return s;
}

}  // namespace etpack
