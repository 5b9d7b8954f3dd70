// A small JSON document model for program JSON, case files and reports.
// Numbers keep their source text so int64/uint64 values stay exact; objects
// keep insertion order (it is meaningful for named data). Python's bare
// `NaN`, `Infinity` and `-Infinity` tokens are accepted as numbers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

namespace etpack {

class Json {
 public:
  enum class Type : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };
  using Member = std::pair<std::string, Json>;

  Json() = default;
  static Json null() { return Json(); }
  static Json boolean(bool b);
  static Json number_text(std::string text);  // text must be a JSON number token
  static Json integer(int64_t v);
  static Json unsigned_integer(uint64_t v);
  static Json real(double v);  // Python repr; inf/-inf/NaN become bare tokens
  static Json string(std::string s);
  static Json array();
  static Json object();

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_bool() const { return type_ == Type::kBool; }
  bool is_number() const { return type_ == Type::kNumber; }
  bool is_string() const { return type_ == Type::kString; }
  bool is_array() const { return type_ == Type::kArray; }
  bool is_object() const { return type_ == Type::kObject; }

  bool bool_value() const { return bool_; }
  // For numbers: the token text; for strings: the decoded string.
  const std::string& text() const { return text_; }
  std::optional<int64_t> as_int64() const;
  std::optional<uint64_t> as_uint64() const;
  std::optional<double> as_double() const;

  const std::vector<Json>& items() const { return items_; }
  std::vector<Json>& items() { return items_; }
  const std::vector<Member>& members() const { return members_; }
  std::vector<Member>& members() { return members_; }
  // First member named `key`, or nullptr.
  const Json* find(std::string_view key) const;

  Json& push(Json v);
  Json& set(std::string key, Json v);  // appends; does not replace

  // Semantic equality: objects compare as unordered maps, numbers by value.
  bool equals(const Json& other) const;

 private:
  Type type_ = Type::kNull;
  bool bool_ = false;
  std::string text_;
  std::vector<Json> items_;
  std::vector<Member> members_;
};

// Parses one JSON document. Errors name the byte offset. `max_depth` bounds
// nesting so hostile input cannot exhaust the stack.
Result<Json> parse_json(std::string_view text, size_t max_depth = 256);

// Serializes compactly in Python json.dumps style (", " and ": ").
std::string write_json(const Json& value);
void write_json(const Json& value, std::string& out);

// A string as a JSON string token, appended to `out` (escapes as write_json).
void write_json_string(const std::string& s, std::string& out);
// One byte of a JSON string, escaped as write_json escapes it: the short
// escapes, \u00XX below 0x20, every other byte as it is.
void write_json_string_byte(unsigned char c, std::string& out);

// Python float repr (shortest round-trip digits, "1e-05", "2.0").
std::string python_float_repr(double v);

}  // namespace etpack
