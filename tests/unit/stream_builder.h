// Value streams for tests, written as npm/src/marshal/program-stream.mjs
// writes them (core/value_stream.h): shared by the value stream and stream
// encoder tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <string>

#include "core/json.h"
#include "core/le_bytes.h"
#include "core/value_stream.h"

namespace etpack::testing {

// A JSON document as the JS writer would stream the object JSON.parse
// makes of it: int32 as INT32, other safe integers and reals as DOUBLE,
// integers beyond 2^53 as their digits (a BigInt).
class StreamBuilder {
 public:
  StreamBuilder() { out_.assign(kValueStreamMagic); }
  const std::string& bytes() const { return out_; }

  void value(const Json& j) {
    switch (j.type()) {
      case Json::Type::kNull: tag(StreamTag::kNull); break;
      case Json::Type::kBool: tag(j.bool_value() ? StreamTag::kTrue : StreamTag::kFalse); break;
      case Json::Type::kString: text(StreamTag::kString, j.text()); break;
      case Json::Type::kNumber: number(j); break;
      case Json::Type::kArray:
        tag(StreamTag::kArray);
        for (const Json& item : j.items()) value(item);
        tag(StreamTag::kEnd);
        break;
      case Json::Type::kObject:
        tag(StreamTag::kObject);
        for (const auto& [k, v] : j.members()) {
          key(k);
          value(v);
        }
        tag(StreamTag::kEnd);
        break;
    }
  }
  void tag(StreamTag t) { out_.push_back(static_cast<char>(t)); }
  void text(StreamTag t, const std::string& s) {
    tag(t);
    append_le<uint32_t>(out_, static_cast<uint32_t>(s.size()));
    out_ += s;
  }
  void key(const std::string& k) {
    auto it = keys_.find(k);
    if (it != keys_.end()) {
      tag(StreamTag::kKey);
      append_le<uint32_t>(out_, it->second);
      return;
    }
    const uint32_t id = static_cast<uint32_t>(keys_.size());
    keys_.emplace(k, id);
    tag(StreamTag::kKeyDef);
    append_le<uint32_t>(out_, id);
    append_le<uint32_t>(out_, static_cast<uint32_t>(k.size()));
    out_ += k;
  }
  void int32(int32_t v) {
    tag(StreamTag::kInt32);
    append_le<uint32_t>(out_, static_cast<uint32_t>(v));
  }
  void real(double d) {
    tag(StreamTag::kDouble);
    uint64_t bits;
    std::memcpy(&bits, &d, 8);
    append_le<uint64_t>(out_, bits);
  }

 private:
  void number(const Json& j) {
    if (auto i = j.as_int64(); i && *i >= INT32_MIN && *i <= INT32_MAX && j.text() != "-0") return int32(static_cast<int32_t>(*i));
    if (auto i = j.as_int64(); i && *i >= -(int64_t{1} << 53) && *i <= (int64_t{1} << 53)) return real(static_cast<double>(*i));
    if (j.as_int64() || j.as_uint64()) return text(StreamTag::kString, j.text());
    real(*j.as_double());
  }
  std::string out_;
  std::map<std::string, uint32_t> keys_;
};

inline std::string stream_of(const std::string& json_text) {
  auto doc = parse_json(json_text);
  EXPECT_TRUE(doc.ok());
  StreamBuilder b;
  b.value(*doc);
  return b.bytes();
}

}  // namespace etpack::testing
