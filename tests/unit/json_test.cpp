#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/json.h"

namespace etpack {
namespace {

TEST(Json, KeepsInt64AndUint64Exact) {
  auto j = parse_json(R"({"a": 9223372036854775807, "b": -9223372036854775808, "c": 18446744073709551615})");
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(j->find("a")->as_int64(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(j->find("b")->as_int64(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(j->find("c")->as_uint64(), std::numeric_limits<uint64_t>::max());
  EXPECT_FALSE(j->find("c")->as_int64().has_value());  // out of int64 range: no silent wrap
}

TEST(Json, AcceptsPythonNonFiniteTokens) {
  auto j = parse_json("[NaN, Infinity, -Infinity, 1.5e3]");
  ASSERT_TRUE(j.ok());
  EXPECT_TRUE(std::isnan(*j->items()[0].as_double()));
  EXPECT_EQ(*j->items()[1].as_double(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(*j->items()[2].as_double(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(*j->items()[3].as_double(), 1500.0);
}

TEST(Json, KeepsMemberOrderAndEscapes) {
  auto j = parse_json(R"({"z": 1, "a": "x\u00e9\n\"", "m": [true, false, null]})");
  ASSERT_TRUE(j.ok());
  ASSERT_EQ(j->members().size(), 3u);
  EXPECT_EQ(j->members()[0].first, "z");
  EXPECT_EQ(j->members()[1].second.text(), "x\xc3\xa9\n\"");
  EXPECT_EQ(write_json(*j), R"({"z": 1, "a": "x)" "\xc3\xa9" R"(\n\"", "m": [true, false, null]})");
}

TEST(Json, ErrorsNameTheOffset) {
  auto j = parse_json(R"({"a": [1, 2,]})");
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error().code, ErrorCode::kInvalidJson);
  EXPECT_NE(j.error().message.find("offset 12"), std::string::npos) << j.error().message;
}

TEST(Json, DepthIsBounded) {
  std::string deep(100000, '[');
  auto j = parse_json(deep);
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.error().message.find("nesting deeper"), std::string::npos);
}

TEST(Json, SemanticEqualityIgnoresKeyOrderAndNumberSpelling) {
  auto a = parse_json(R"({"x": 1.0, "y": [1, 2]})");
  auto b = parse_json(R"({"y": [1, 2], "x": 1})");
  auto c = parse_json(R"({"y": [2, 1], "x": 1})");
  EXPECT_TRUE(a->equals(*b));
  EXPECT_FALSE(a->equals(*c));
}

TEST(Json, PythonFloatRepr) {
  EXPECT_EQ(python_float_repr(0.5), "0.5");
  EXPECT_EQ(python_float_repr(2.0), "2.0");
  EXPECT_EQ(python_float_repr(-2.25), "-2.25");
  EXPECT_EQ(python_float_repr(1e-05), "1e-05");
  EXPECT_EQ(python_float_repr(0.0001), "0.0001");
  EXPECT_EQ(python_float_repr(1e16), "1e+16");
  EXPECT_EQ(python_float_repr(123456789012345.0), "123456789012345.0");
  EXPECT_EQ(python_float_repr(0.1), "0.1");
  EXPECT_EQ(python_float_repr(std::numeric_limits<double>::infinity()), "Infinity");
  EXPECT_EQ(python_float_repr(-0.0), "-0.0");
}

// Plain runs between escapes are copied whole: every escape at the start,
// middle and end of a string, next to each other, and bytes that need none
// (0x7f, UTF-8) left as they are.
TEST(Json, WriteJsonStringEscapesAroundPlainRuns) {
  auto token = [](const std::string& s) {
    std::string out = "x";
    write_json_string(s, out);
    return out;
  };
  EXPECT_EQ(token(""), "x\"\"");
  EXPECT_EQ(token("plain name"), "x\"plain name\"");
  EXPECT_EQ(token("\"a\\b\""), "x\"\\\"a\\\\b\\\"\"");
  EXPECT_EQ(token(std::string("\n\t\r\b\f\x01\x1f", 7)), "x\"\\n\\t\\r\\b\\f\\u0001\\u001f\"");
  EXPECT_EQ(token(std::string("a\0b", 3)), "x\"a\\u0000b\"");
  EXPECT_EQ(token("\x7f\xc3\xa9\xed\xa0\x80z"), "x\"\x7f\xc3\xa9\xed\xa0\x80z\"");
}

}  // namespace
}  // namespace etpack
