// A tagged binary value stream: the form in which a JavaScript host hands a
// program object to the core (npm/src/program-stream.mjs writes it in one
// walk, straight from the object; no JSON text in between). It holds the
// values JSON holds, but numbers travel as raw little-endian bits (int32 and
// double: exact, NaN/±Infinity/-0 included), strings as length-prefixed
// UTF-8 and object keys as ids of keys defined once. The bytes come from a
// caller's process, so every read is bounds-checked and every count is
// checked against the bytes that remain; errors name the byte offset.
//
// Layout: the magic "ETV1", then one value. A value is a tag byte
// (core/value_stream_tags.def):
//   0 END      closes the innermost object or array
//   1 NULL, 2 FALSE, 3 TRUE
//   4 INT32    int32
//   5 DOUBLE   float64
//   6 STRING   uint32 length, UTF-8 bytes
//   7 OBJECT   members (KEY or KEY_DEF, then a value) up to END
//   8 ARRAY    values up to END
//   9 KEY      uint32 id of a key defined earlier
//  10 KEY_DEF  uint32 id (the next unused one), uint32 length, UTF-8 bytes
//  11 BYTES    uint32 length, JSON text of a byte reference (bindings/marshal.h)
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/le_bytes.h"
#include "core/result.h"

namespace etpack {

// The tags and the magic: core/value_stream_tags.def (JS gets the same
// values generated from it).
#define VALUE_STREAM_MAGIC(text)
enum class StreamTag : uint8_t {
#define STREAM_TAG(id, name, code) id = code,
#include "core/value_stream_tags.def"
#undef STREAM_TAG
  kCount
};
#undef VALUE_STREAM_MAGIC

#define STREAM_TAG(id, name, code)
#define VALUE_STREAM_MAGIC(text) constexpr std::string_view kValueStreamMagic = text;
#include "core/value_stream_tags.def"
#undef VALUE_STREAM_MAGIC
#undef STREAM_TAG
// peek() takes every code below kCount for a tag: the rows' codes are 0..n-1.
#define VALUE_STREAM_MAGIC(text)
#define STREAM_TAG(id, name, code) +1
static_assert(0
#include "core/value_stream_tags.def"
              == static_cast<int>(StreamTag::kCount), "core/value_stream_tags.def: codes 0..n-1, one row each");
#undef STREAM_TAG
#undef VALUE_STREAM_MAGIC

class ValueStream {
 public:
  // `bytes` must begin with kValueStreamMagic (checked by begin()).
  explicit ValueStream(std::string_view bytes) : s_(bytes) {}
  Status begin();

  size_t pos() const { return pos_; }
  void seek(size_t pos) { pos_ = pos; }
  bool at_end() const { return pos_ >= s_.size(); }

  // The next tag, not consumed; kEnd past the last byte is reported by
  // whoever consumes it (take() fails there).
  StreamTag peek() const {
    return pos_ < s_.size() && static_cast<uint8_t>(s_[pos_]) < static_cast<uint8_t>(StreamTag::kCount)
               ? static_cast<StreamTag>(s_[pos_])
               : StreamTag::kCount;
  }
  bool consume(StreamTag tag) {
    if (peek() != tag) return false;
    ++pos_;
    return true;
  }
  Status take(StreamTag tag) {
    if (consume(tag)) return {};
    return unexpected();
  }

  // After their tag: the payloads. The hot calls are inline: a program's
  // stream is hundreds of thousands of them.
  Result<int32_t> int32() {
    if (s_.size() - pos_ < 4) return error("truncated value");
    return static_cast<int32_t>(next_u32());
  }
  Result<double> real() {
    if (s_.size() - pos_ < 8) return error("truncated value");
    const uint64_t bits = read_le<uint64_t>(reinterpret_cast<const uint8_t*>(s_.data() + pos_));
    pos_ += 8;
    double d;
    std::memcpy(&d, &bits, 8);  // bit-exact: NaN payloads, -0 and the infinities survive
    return d;
  }
  // INT32 and its value, consumed, if that comes next in full.
  bool next_int32(int64_t& v) {
    if (peek() != StreamTag::kInt32 || s_.size() - pos_ < 5) return false;
    ++pos_;
    v = static_cast<int32_t>(next_u32());
    return true;
  }
  // STRING and BYTES: length-prefixed bytes.
  Result<std::string_view> text() {
    if (s_.size() - pos_ < 4) return error("truncated value");
    const uint32_t n = next_u32();
    if (s_.size() - pos_ < n) return error("text longer than the stream");
    const std::string_view t = s_.substr(pos_, n);
    pos_ += n;
    return t;
  }
  // A member's key (KEY or KEY_DEF, consumed): its id, and its text in `name`.
  Result<uint32_t> key(std::string_view& name) {
    if (peek() == StreamTag::kKey && s_.size() - pos_ >= 5) {
      ++pos_;
      const uint32_t id = next_u32();
      if (id >= keys_.size()) return error("undefined key " + std::to_string(id));
      name = keys_[id];
      return id;
    }
    return key_def(name);
  }

  // The keys defined so far, by id: views into the stream's bytes.
  const std::vector<std::string_view>& keys() const { return keys_; }
  // Starts with `keys` (another reader's keys() of these bytes, which read
  // them all without an error) defined: a stretch passed over with seek()
  // then leaves none of its definitions missing. Their definitions met
  // again are accepted, as when a stretch is read twice.
  void preset_keys(std::vector<std::string_view> keys) { keys_ = std::move(keys); }

  // Skips one value of any kind (keys it defines are still defined).
  Status skip_value(size_t depth, size_t max_depth);

  Error error(const std::string& what) const;

 private:
  uint32_t next_u32() {  // the caller checked that 4 bytes remain
    const uint32_t v = read_le<uint32_t>(reinterpret_cast<const uint8_t*>(s_.data() + pos_));
    pos_ += 4;
    return v;
  }
  Error unexpected() const;
  Result<uint32_t> key_def(std::string_view& name);
  std::string_view s_;
  size_t pos_ = 0;
  std::vector<std::string_view> keys_;  // views into s_, by id
};

}  // namespace etpack
