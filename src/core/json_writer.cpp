#include "core/json_writer.h"

#include "core/json.h"
#include "core/utf8_text.h"

namespace etpack {
namespace {

constexpr const char* kHex = "0123456789abcdef";

void hex4(uint32_t v, std::string& out) {
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out.push_back(kHex[(v >> shift) & 15]);
}

}  // namespace

void write_js_string(std::string_view s, std::string& out) {
  out.push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      write_json_string_byte(c, out);
      ++i;
      continue;
    }
    // A surrogate's 3-byte encoding: what a lone \udxxx becomes.
    if (c == 0xED && s.size() - i >= 3 && (static_cast<unsigned char>(s[i + 1]) & 0xE0) == 0xA0 &&
        (static_cast<unsigned char>(s[i + 2]) & 0xC0) == 0x80) {
      hex4(0xD000 | ((static_cast<unsigned char>(s[i + 1]) & 0x3F) << 6) | (static_cast<unsigned char>(s[i + 2]) & 0x3F), out);
      i += 3;
      continue;
    }
    const size_t n = utf8_sequence_length(s, i);
    if (n == 0) {  // a stray byte: as the Latin-1 character of its value
      hex4(c, out);
      ++i;
      continue;
    }
    out.append(s.data() + i, n);
    i += n;
  }
  out.push_back('"');
}

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (first_.empty()) return;
  if (!first_.back()) out_.push_back(',');
  first_.back() = false;
}

JsonWriter& JsonWriter::open(char c) {
  separate();
  out_.push_back(c);
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::close(char c) {
  out_.push_back(c);
  if (!first_.empty()) first_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  separate();
  write_js_string(k, out_);
  out_.push_back(':');
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::string(std::string_view s) {
  separate();
  write_js_string(s, out_);
  return *this;
}

JsonWriter& JsonWriter::number(uint64_t v) {
  separate();
  out_ += std::to_string(v);
  return *this;
}

JsonWriter& JsonWriter::integer(int64_t v) {
  separate();
  out_ += std::to_string(v);
  return *this;
}

JsonWriter& JsonWriter::boolean(bool b) {
  separate();
  out_ += b ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  separate();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  separate();
  out_.append(json.data(), json.size());
  return *this;
}

}  // namespace etpack
