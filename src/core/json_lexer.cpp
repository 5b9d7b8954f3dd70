#include "core/json_lexer.h"

namespace etpack {

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

Error JsonLexer::error(const std::string& what) const {
  return make_error(ErrorCode::kInvalidJson, "JSON: " + what + " at offset " + std::to_string(pos_));
}

Error JsonLexer::expected(char c) const { return error(std::string("expected '") + c + "'"); }

Status JsonLexer::hex4(uint32_t& cp) {
  if (s_.size() - pos_ < 4) return error("truncated \\u escape");
  cp = 0;
  for (int i = 0; i < 4; ++i) {
    char h = s_[pos_++];
    cp <<= 4;
    if (h >= '0' && h <= '9') cp |= static_cast<uint32_t>(h - '0');
    else if (h >= 'a' && h <= 'f') cp |= static_cast<uint32_t>(h - 'a' + 10);
    else if (h >= 'A' && h <= 'F') cp |= static_cast<uint32_t>(h - 'A' + 10);
    else return error("bad \\u escape");
  }
  return {};
}

Result<std::string_view> JsonLexer::string_token(std::string& scratch) {
  if (peek() != '"') return error("expected a string");
  size_t start = ++pos_;
  while (pos_ < s_.size() && s_[pos_] != '"' && s_[pos_] != '\\') {
    if (static_cast<unsigned char>(s_[pos_]) < 0x20) return error("control character in string");
    ++pos_;
  }
  if (pos_ >= s_.size()) return error("unterminated string");
  if (s_[pos_] == '"') return s_.substr(start, pos_++ - start);
  scratch.assign(s_.data() + start, pos_ - start);
  while (true) {
    if (pos_ >= s_.size()) return error("unterminated string");
    char c = s_[pos_++];
    if (c == '"') return std::string_view(scratch);
    if (static_cast<unsigned char>(c) < 0x20) return error("control character in string");
    if (c != '\\') {
      scratch.push_back(c);
      continue;
    }
    if (pos_ >= s_.size()) return error("unterminated escape");
    char e = s_[pos_++];
    switch (e) {
      case '"': scratch.push_back('"'); break;
      case '\\': scratch.push_back('\\'); break;
      case '/': scratch.push_back('/'); break;
      case 'b': scratch.push_back('\b'); break;
      case 'f': scratch.push_back('\f'); break;
      case 'n': scratch.push_back('\n'); break;
      case 'r': scratch.push_back('\r'); break;
      case 't': scratch.push_back('\t'); break;
      case 'u': {
        uint32_t cp = 0;
        ETP_TRY(hex4(cp));
        if (cp >= 0xD800 && cp <= 0xDBFF && s_.substr(pos_, 2) == "\\u") {
          size_t save = pos_;
          pos_ += 2;
          uint32_t lo = 0;
          ETP_TRY(hex4(lo));
          if (lo >= 0xDC00 && lo <= 0xDFFF) cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          else pos_ = save;
        }
        append_utf8(scratch, cp);
        break;
      }
      default: return error("bad escape");
    }
  }
}

Status JsonLexer::skip_string() {
  if (peek() == '"') {
    // Plain strings (nearly all) are only scanned; anything else (escapes,
    // control characters, the end of the text) goes through string_token,
    // which reports it exactly as a read would.
    for (size_t p = pos_ + 1; p < s_.size(); ++p) {
      const unsigned char c = static_cast<unsigned char>(s_[p]);
      if (c == '"') {
        pos_ = p + 1;
        return {};
      }
      if (c == '\\' || c < 0x20) break;
    }
  }
  std::string scratch;
  auto token = string_token(scratch);
  if (!token.ok()) return token.take_error();
  return {};
}

Result<std::string_view> JsonLexer::number_token() {
  skip_ws();
  size_t start = pos_;
  // Python's special tokens start with N, I or -I: test them only then.
  const char first = pos_ < s_.size() ? s_[pos_] : '\0';
  if (first == 'N' || first == 'I' || (first == '-' && pos_ + 1 < s_.size() && s_[pos_ + 1] == 'I')) {
    for (std::string_view word : {"NaN", "Infinity", "-Infinity"}) {
      if (s_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return s_.substr(start, word.size());
      }
    }
  }
  auto digits = [&] {
    size_t d = pos_;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    return pos_ - d;
  };
  if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
  if (pos_ < s_.size() && s_[pos_] == '0') {
    ++pos_;
  } else if (digits() == 0) {
    pos_ = start;
    return error("expected a value");
  }
  if (pos_ < s_.size() && s_[pos_] == '.') {
    ++pos_;
    if (digits() == 0) return error("expected digits after '.'");
  }
  if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
    ++pos_;
    if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
    if (digits() == 0) return error("expected exponent digits");
  }
  return s_.substr(start, pos_ - start);
}

Status JsonLexer::skip_value(size_t depth, size_t max_depth) {
  if (depth > max_depth) return error("nesting deeper than " + std::to_string(max_depth));
  char c = peek();
  if (c == '\0') return error("unexpected end of input");
  if (c == '"') return skip_string();
  if (c == '{' || c == '[') {
    const char close = c == '{' ? '}' : ']';
    ++pos_;
    if (peek() == close) {
      ++pos_;
      return {};
    }
    while (true) {
      if (c == '{') {
        ETP_TRY(skip_string());
        ETP_TRY(expect(':'));
      }
      ETP_TRY(skip_value(depth + 1, max_depth));
      char d = peek();
      if (d == '\0') return error("unterminated container");
      ++pos_;
      if (d == close) return {};
      if (d != ',') return error("expected ',' or a closing bracket");
    }
  }
  if (consume("true") || consume("false") || consume("null")) return {};
  ETP_ASSIGN(auto number, number_token());
  (void)number;
  return {};
}

}  // namespace etpack
