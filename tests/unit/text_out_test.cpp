// TextOut: the same bytes write_json and std::to_string give, across its
// buffer's boundary, for pieces longer than the buffer, and for the bytes a
// JSON string escapes.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "core/json.h"
#include "core/text_out.h"

namespace etpack {
namespace {

TEST(TextOut, NumbersAsToString) {
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{9}, int64_t{10}, int64_t{-1234567890123},
                    std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}) {
    std::string out;
    TextOut(out).number(v);
    EXPECT_EQ(out, std::to_string(v));
  }
  std::string out;
  TextOut(out).unsigned_number(std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(out, "18446744073709551615");
}

TEST(TextOut, StringsAndValuesAsWriteJson) {
  const std::string name("a\"b\\c\n\x01\x1f\x7f \xc3\xa9 \xed\xa0\x80 end");
  std::string expected, out;
  write_json_string(name, expected);
  TextOut(out).json_string(name);
  EXPECT_EQ(out, expected);

  Json j = Json::object();
  j.set("k", Json::string(name));
  j.set("n", Json::integer(-3));
  std::string expected_json = "[" + write_json(j) + "]";
  std::string json;
  {
    TextOut w(json);
    w.put('[');
    w.json(j);
    w.put(']');
  }
  EXPECT_EQ(json, expected_json);
}

// Pieces of every length around the buffer's size (4,096), one after
// another: the text is their concatenation, in order.
TEST(TextOut, PiecesAcrossTheBuffer) {
  std::string expected, out;
  {
    TextOut w(out);
    for (size_t n : {size_t{3}, size_t{4090}, size_t{7}, size_t{4096}, size_t{1}, size_t{4097}, size_t{9000}, size_t{15}}) {
      std::string piece(n, '\0');
      for (size_t i = 0; i < n; ++i) piece[i] = static_cast<char>('a' + (i + n) % 26);
      w.raw(piece);
      expected += piece;
      w.lit(", ");
      expected += ", ";
    }
  }
  EXPECT_EQ(out, expected);
}

}  // namespace
}  // namespace etpack
