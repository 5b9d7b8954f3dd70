// JsonWriter: a reply written as JSON text straight into a string, compact
// (no spaces), its commas placed by the writer. Strings are written as the
// JS string they stand for: JSON escapes, a lone surrogate's 3-byte encoding
// (ED A0..BF xx, how a JS string with one reaches UTF-8) as \udxxx, and any
// other byte that is not strict UTF-8 as \u00NN, so JSON.parse gives back
// the name a file holds, never U+FFFD. Streaming: a reply naming a million
// checkpoint tensors costs its text, not a document tree.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace etpack {

class JsonWriter {
 public:
  // Appends to `out`, which must outlive the writer.
  explicit JsonWriter(std::string& out) : out_(out) {}

  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }
  // A member's key (inside an object): the next value is its value.
  JsonWriter& key(std::string_view k);
  JsonWriter& string(std::string_view s);
  JsonWriter& number(uint64_t v);
  JsonWriter& integer(int64_t v);
  JsonWriter& boolean(bool b);
  JsonWriter& null();
  // `json` is one JSON value, written as it is.
  JsonWriter& raw(std::string_view json);

 private:
  JsonWriter& open(char c);
  JsonWriter& close(char c);
  void separate();  // the comma before a value, unless it is a key's value or the first

  std::string& out_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
  bool after_key_ = false;
};

// `s` as a JSON string token as JsonWriter writes it, appended to `out`.
void write_js_string(std::string_view s, std::string& out);

}  // namespace etpack
