// The Source-independent half of model/table_reader.h: the path to the
// value being read (for errors) and the schema's rules for one scalar
// (integer ranges, a JavaScript Number where an integer is expected, a
// scalar's little-endian bytes). TableReader<Source> derives from
// ScalarRules; everything here is inline, as it was in the template.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/le_bytes.h"
#include "core/result.h"
#include "model/value_json.h"

namespace etpack::table_reader {

// One scalar as a source holds it: text (JSON), or a value (the stream).
struct ScalarToken {
  enum Kind { kEnd, kOther, kTrue, kFalse, kInt, kDouble, kNumberText, kString } kind = kEnd;
  std::string_view text;  // kNumberText, kString
  int64_t i = 0;          // kInt
  double d = 0;           // kDouble
};

constexpr size_t kMaxDepth = 128;

// The path to the value being read: one part per field or list index. It
// is written on every step but turned into text only for an error, so it
// lives in a fixed array (nesting is bounded by kMaxDepth: each table level
// adds a field and at most one index).
struct PathPart {
  const std::string* name = nullptr;  // field name, or null for an index
  size_t index = 0;
};
constexpr size_t kMaxPath = 2 * kMaxDepth + 8;

class ScalarRules {
 protected:
  ScalarRules() : path_(kMaxPath) {}

  // --- errors -------------------------------------------------------------
  std::string path() const {
    std::string out;
    for (size_t i = 0; i < std::min(path_len_, kMaxPath); ++i) {
      const PathPart& p = path_[i];
      if (p.name) {
        if (!out.empty()) out += '.';
        out += *p.name;
      } else {
        out += "[" + std::to_string(p.index) + "]";
      }
    }
    return out.empty() ? "<root>" : out;
  }
  Error mismatch(const std::string& what) const {
    return make_error(ErrorCode::kSchemaMismatch, "program JSON at " + path() + ": " + what);
  }

  // Depth checks keep the path inside its array; the guard only keeps a
  // broken invariant from writing past it.
  void push_name(const std::string* name) {
    if (path_len_ < kMaxPath) path_[path_len_] = {name, 0};
    ++path_len_;
  }
  void push_index(size_t index) {
    if (path_len_ < kMaxPath) path_[path_len_] = {nullptr, index};
    ++path_len_;
  }
  void pop() { --path_len_; }

  // --- scalars ------------------------------------------------------------
  static bool is_integer_text(std::string_view t) {
    size_t i = (!t.empty() && t[0] == '-') ? 1 : 0;
    if (i >= t.size()) return false;
    for (; i < t.size(); ++i)
      if (t[i] < '0' || t[i] > '9') return false;
    return true;
  }

  Result<Scalar> integer(std::string_view t, BaseType type) {
    Scalar s;
    s.u = 0;
    if (!is_integer_text(t)) return mismatch("expected an integer, got " + std::string(t));
    const int bits = static_cast<int>(scalar_size(type) * 8);
    if (is_signed_integer(type)) {
      int64_t v = 0;
      auto r = std::from_chars(t.data(), t.data() + t.size(), v);
      if (r.ec != std::errc() || r.ptr != t.data() + t.size()) return mismatch(std::string(t) + " does not fit int64");
      if (bits < 64) {
        int64_t lo = -(int64_t{1} << (bits - 1)), hi = (int64_t{1} << (bits - 1)) - 1;
        if (v < lo || v > hi) return mismatch(std::string(t) + " does not fit " + base_type_name(type));
      }
      s.i = v;
      return s;
    }
    uint64_t v = 0;
    auto r = t[0] == '-' ? std::from_chars_result{t.data(), std::errc::invalid_argument}
                         : std::from_chars(t.data(), t.data() + t.size(), v);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size())
      return mismatch("expected a non-negative integer for " + std::string(base_type_name(type)) + ", got " + std::string(t));
    if (type == BaseType::kBool && v > 1) return mismatch(std::string(t) + " is not a bool");
    if (bits < 64 && v > ((uint64_t{1} << bits) - 1)) return mismatch(std::string(t) + " does not fit " + base_type_name(type));
    s.u = v;
    return s;
  }

  // An integer the source holds as a value (not text): checked as its
  // digits would be, and reported the same way when it does not fit.
  Result<Scalar> integer_value(int64_t v, BaseType type) {
    const int bits = static_cast<int>(scalar_size(type) * 8);
    Scalar s;
    s.i = v;
    if (is_signed_integer(type)) {
      if (bits == 64 || (v >= -(int64_t{1} << (bits - 1)) && v < (int64_t{1} << (bits - 1)))) return s;
    } else if (v >= 0 && (type != BaseType::kBool || v <= 1) && (bits == 64 || static_cast<uint64_t>(v) < (uint64_t{1} << bits))) {
      return s;
    }
    return integer(std::to_string(v), type);
  }

  // A double where an integer is expected (a JavaScript Number): exact if
  // it is a safe integer, refused with the reason otherwise.
  Result<Scalar> double_as_integer(double d, BaseType type) {
    if (std::isfinite(d) && d == std::trunc(d)) {
      if (std::fabs(d) <= 9007199254740991.0) {
        if (d == 0 && std::signbit(d)) return integer("-0", type);
        return integer_value(static_cast<int64_t>(d), type);
      }
      return unsafe_number(number_text(d));
    }
    return mismatch("expected an integer, got " + number_text(d));
  }
  Error unsafe_number(const std::string& text) const {
    return make_error(ErrorCode::kInvalidArgument, "program at " + path() + ": the Number " + text +
                                                       " is outside the safe integer range and may have been rounded; pass a BigInt");
  }
  // As JavaScript writes a Number: integers below 1e21 in full.
  static std::string number_text(double d) {
    if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 1e21) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.0f", d);
      return buf;
    }
    return python_float_repr(d);
  }
  static double as_real(double d, BaseType type) {
    return type == BaseType::kFloat ? static_cast<double>(static_cast<float>(d)) : d;
  }

  static void put_scalar(uint8_t* p, BaseType type, Scalar s) {
    switch (scalar_size(type)) {
      case 1: p[0] = static_cast<uint8_t>(s.u); break;
      case 2: write_le<uint16_t>(p, static_cast<uint16_t>(s.u)); break;
      case 4:
        if (type == BaseType::kFloat) {
          float f = static_cast<float>(s.d);
          uint32_t bits;
          std::memcpy(&bits, &f, 4);
          write_le<uint32_t>(p, bits);
        } else {
          write_le<uint32_t>(p, static_cast<uint32_t>(s.u));
        }
        break;
      default:
        if (type == BaseType::kDouble) {
          uint64_t bits;
          std::memcpy(&bits, &s.d, 8);
          write_le<uint64_t>(p, bits);
        } else {
          write_le<uint64_t>(p, s.u);
        }
    }
  }

 private:
  std::vector<PathPart> path_;  // kMaxPath parts, the first path_len_ in use

 protected:
  size_t path_len_ = 0;
};

}  // namespace etpack::table_reader
