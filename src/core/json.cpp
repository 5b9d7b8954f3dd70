#include "core/json.h"

#include "core/json_lexer.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace etpack {

Json Json::boolean(bool b) {
  Json j;
  j.type_ = Type::kBool;
  j.bool_ = b;
  return j;
}
Json Json::number_text(std::string text) {
  Json j;
  j.type_ = Type::kNumber;
  j.text_ = std::move(text);
  return j;
}
Json Json::integer(int64_t v) { return number_text(std::to_string(v)); }
Json Json::unsigned_integer(uint64_t v) { return number_text(std::to_string(v)); }
Json Json::real(double v) { return number_text(python_float_repr(v)); }
Json Json::string(std::string s) {
  Json j;
  j.type_ = Type::kString;
  j.text_ = std::move(s);
  return j;
}
Json Json::array() {
  Json j;
  j.type_ = Type::kArray;
  return j;
}
Json Json::object() {
  Json j;
  j.type_ = Type::kObject;
  return j;
}

Json& Json::push(Json v) {
  items_.push_back(std::move(v));
  return items_.back();
}
Json& Json::set(std::string key, Json v) {
  members_.emplace_back(std::move(key), std::move(v));
  return members_.back().second;
}

const Json* Json::find(std::string_view key) const {
  for (const auto& m : members_)
    if (m.first == key) return &m.second;
  return nullptr;
}

static bool is_integer_token(const std::string& t) {
  if (t.empty()) return false;
  size_t i = (t[0] == '-') ? 1 : 0;
  if (i >= t.size()) return false;
  for (; i < t.size(); ++i)
    if (t[i] < '0' || t[i] > '9') return false;
  return true;
}

std::optional<int64_t> Json::as_int64() const {
  if (type_ != Type::kNumber || !is_integer_token(text_)) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(text_.c_str(), &end, 10);
  if (errno == ERANGE || *end != '\0') return std::nullopt;
  return static_cast<int64_t>(v);
}

std::optional<uint64_t> Json::as_uint64() const {
  if (type_ != Type::kNumber || !is_integer_token(text_) || text_[0] == '-') return std::nullopt;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text_.c_str(), &end, 10);
  if (errno == ERANGE || *end != '\0') return std::nullopt;
  return static_cast<uint64_t>(v);
}

std::optional<double> Json::as_double() const {
  if (type_ != Type::kNumber) return std::nullopt;
  if (text_ == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text_ == "Infinity") return std::numeric_limits<double>::infinity();
  if (text_ == "-Infinity") return -std::numeric_limits<double>::infinity();
  char* end = nullptr;
  double v = std::strtod(text_.c_str(), &end);
  if (*end != '\0') return std::nullopt;
  return v;
}

bool Json::equals(const Json& o) const {
  if (type_ != o.type_) return false;
  switch (type_) {
    case Type::kNull: return true;
    case Type::kBool: return bool_ == o.bool_;
    case Type::kString: return text_ == o.text_;
    case Type::kNumber: {
      if (text_ == o.text_) return true;
      auto a = as_int64(), b = o.as_int64();
      if (a && b) return *a == *b;
      auto ua = as_uint64(), ub = o.as_uint64();
      if (ua && ub) return *ua == *ub;
      auto da = as_double(), db = o.as_double();
      if (!da || !db) return false;
      if (std::isnan(*da) && std::isnan(*db)) return true;
      return *da == *db;
    }
    case Type::kArray:
      if (items_.size() != o.items_.size()) return false;
      for (size_t i = 0; i < items_.size(); ++i)
        if (!items_[i].equals(o.items_[i])) return false;
      return true;
    case Type::kObject:
      if (members_.size() != o.members_.size()) return false;
      for (const auto& m : members_) {
        const Json* other = o.find(m.first);
        if (other == nullptr || !m.second.equals(*other)) return false;
      }
      return true;
  }
  return false;
}

namespace {

class Parser {
 public:
  Parser(std::string_view text, size_t max_depth) : lex_(text), max_depth_(max_depth) {}

  Result<Json> parse_document() {
    Json v;
    ETP_TRY(parse_value(v, 0));
    if (!lex_.at_end()) return lex_.error("unexpected text after the JSON value");
    return v;
  }

 private:
  Status parse_value(Json& out, size_t depth) {
    if (depth > max_depth_) return lex_.error("nesting deeper than " + std::to_string(max_depth_));
    char c = lex_.peek();
    if (c == '\0') return lex_.error("unexpected end of input");
    if (c == '{') return parse_object(out, depth);
    if (c == '[') return parse_array(out, depth);
    if (c == '"') {
      std::string scratch;
      ETP_ASSIGN(std::string_view s, lex_.string_token(scratch));
      out = Json::string(std::string(s));
      return {};
    }
    if (lex_.consume("true")) { out = Json::boolean(true); return {}; }
    if (lex_.consume("false")) { out = Json::boolean(false); return {}; }
    if (lex_.consume("null")) { out = Json::null(); return {}; }
    ETP_ASSIGN(std::string_view number, lex_.number_token());
    out = Json::number_text(std::string(number));
    return {};
  }

  Status parse_array(Json& out, size_t depth) {
    ETP_TRY(lex_.expect('['));
    out = Json::array();
    if (lex_.peek() == ']') return lex_.expect(']');
    while (true) {
      Json item;
      ETP_TRY(parse_value(item, depth + 1));
      out.push(std::move(item));
      char c = lex_.peek();
      if (c == ']') return lex_.expect(']');
      if (c != ',') return lex_.error(c == '\0' ? "unterminated array" : "expected ',' or ']'");
      ETP_TRY(lex_.expect(','));
    }
  }

  Status parse_object(Json& out, size_t depth) {
    ETP_TRY(lex_.expect('{'));
    out = Json::object();
    if (lex_.peek() == '}') return lex_.expect('}');
    while (true) {
      if (lex_.peek() != '"') return lex_.error("expected a member name");
      std::string scratch;
      ETP_ASSIGN(std::string_view key, lex_.string_token(scratch));
      std::string name(key);
      ETP_TRY(lex_.expect(':'));
      Json value;
      ETP_TRY(parse_value(value, depth + 1));
      out.set(std::move(name), std::move(value));
      char c = lex_.peek();
      if (c == '}') return lex_.expect('}');
      if (c != ',') return lex_.error(c == '\0' ? "unterminated object" : "expected ',' or '}'");
      ETP_TRY(lex_.expect(','));
    }
  }

  JsonLexer lex_;
  size_t max_depth_;
};

// Runs of bytes that need no escape are appended whole: a byte at a time
// (an out-of-line push_back each in the wasm build) was most of the cost of
// writing graph's JSON, whose ids and labels are all plain.
void write_string(std::string_view s, std::string& out) {
  out.push_back('"');
  size_t run = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;  // written as it is
    out.append(s.data() + run, i - run);
    write_json_string_byte(c, out);
    run = i + 1;
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

}  // namespace

void write_json_string(const std::string& s, std::string& out) { write_string(s, out); }

void write_json_string_byte(unsigned char c, std::string& out) {
  static const char* kHex = "0123456789abcdef";
  switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    case '\b': out += "\\b"; break;
    case '\f': out += "\\f"; break;
    default:
      if (c < 0x20) {
        out += "\\u00";
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 15]);
      } else {
        out.push_back(static_cast<char>(c));
      }
  }
}

Result<Json> parse_json(std::string_view text, size_t max_depth) {
  return Parser(text, max_depth).parse_document();
}

void write_json(const Json& v, std::string& out) {
  switch (v.type()) {
    case Json::Type::kNull: out += "null"; break;
    case Json::Type::kBool: out += v.bool_value() ? "true" : "false"; break;
    case Json::Type::kNumber: out += v.text(); break;
    case Json::Type::kString: write_string(v.text(), out); break;
    case Json::Type::kArray: {
      out.push_back('[');
      bool first = true;
      for (const auto& item : v.items()) {
        if (!first) out += ", ";
        first = false;
        write_json(item, out);
      }
      out.push_back(']');
      break;
    }
    case Json::Type::kObject: {
      out.push_back('{');
      bool first = true;
      for (const auto& m : v.members()) {
        if (!first) out += ", ";
        first = false;
        write_string(m.first, out);
        out += ": ";
        write_json(m.second, out);
      }
      out.push_back('}');
      break;
    }
  }
}

std::string write_json(const Json& value) {
  std::string out;
  write_json(value, out);
  return out;
}

std::string python_float_repr(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  // Shortest scientific form that reads back exactly.
  char buf[64];
  int precision = 1;
  for (; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*e", precision - 1, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string sci(buf);
  size_t epos = sci.find('e');
  int exponent = std::atoi(sci.c_str() + epos + 1);
  std::string mantissa = sci.substr(0, epos);
  bool negative = mantissa[0] == '-';
  if (negative) mantissa.erase(0, 1);
  std::string digits;
  for (char c : mantissa)
    if (c != '.') digits.push_back(c);
  std::string out = negative ? "-" : "";
  if (exponent >= -5 + 1 && exponent < 16) {  // Python repr: fixed for 1e-4 <= |v| < 1e16
    if (exponent >= 0) {
      std::string int_part = digits.substr(0, std::min(digits.size(), static_cast<size_t>(exponent + 1)));
      while (int_part.size() < static_cast<size_t>(exponent + 1)) int_part.push_back('0');
      std::string frac = digits.size() > static_cast<size_t>(exponent + 1) ? digits.substr(exponent + 1) : "0";
      out += int_part + "." + frac;
    } else {
      out += "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  char exp_buf[16];
  std::snprintf(exp_buf, sizeof exp_buf, "e%c%02d", exponent < 0 ? '-' : '+', exponent < 0 ? -exponent : exponent);
  out += exp_buf;
  return out;
}

}  // namespace etpack
