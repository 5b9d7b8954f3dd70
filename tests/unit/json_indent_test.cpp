// JsonIndenter: the layout of JSON.stringify(value, null, 2) from
// write_json's compact text (empty containers kept "[]" / "{}", strings
// with separators and escapes copied as they are), the same whatever the
// chunking of input and output, and a sink that stops it.
#include <gtest/gtest.h>

#include <string>

#include "core/json_indent.h"

namespace etpack {
namespace {

std::string indent(const std::string& text, size_t piece) {
  std::string out;
  JsonIndenter in([&](const char* b, size_t n) { out.append(b, n); return true; });
  for (size_t at = 0; at < text.size(); at += piece) in.push(std::string_view(text).substr(at, piece));
  in.flush();
  return out;
}

TEST(JsonIndent, LaysOutAsJsonStringifyDoes) {
  const std::string compact = "{\"a\": [1, {\"b\": \"x, \\\"y\\\": [z]\\\\\"}], \"c\": [], \"d\": {}, \"e\": null}";
  const std::string expected =
      "{\n  \"a\": [\n    1,\n    {\n      \"b\": \"x, \\\"y\\\": [z]\\\\\"\n    }\n  ],\n  \"c\": [],\n  \"d\": {},\n  \"e\": null\n}";
  for (size_t piece : {size_t{1}, size_t{3}, compact.size()}) EXPECT_EQ(indent(compact, piece), expected) << piece;
}

// Deep nesting (indentations longer than 8 spaces) across the boundary of
// a chunk: the same text however the output is cut.
TEST(JsonIndent, DeepIndentationAcrossChunks) {
  std::string compact, expected;
  for (int d = 0; d < 12; ++d) {
    compact += "[\"s\", ";
    expected += "[\n" + std::string(2 * (d + 1), ' ') + "\"s\",\n" + std::string(2 * (d + 1), ' ');
  }
  compact += "7";
  expected += "7";
  for (int d = 11; d >= 0; --d) {
    compact += "]";
    expected += "\n" + std::string(2 * d, ' ') + "]";
  }
  for (size_t lead = JsonIndenter::kChunk - 40; lead < JsonIndenter::kChunk; lead += 3) {
    std::string out;
    JsonIndenter in([&](const char* b, size_t n) { out.append(b, n); return true; });
    in.raw(std::string(lead, 'x'));
    in.push(compact);
    in.flush();
    ASSERT_EQ(out.size(), lead + expected.size()) << lead;
    EXPECT_EQ(out.substr(lead), expected) << lead;
  }
}

TEST(JsonIndent, SinkThatRefusesStopsIt) {
  size_t calls = 0;
  JsonIndenter in([&](const char*, size_t) { ++calls; return false; }, 1);
  in.raw(std::string(JsonIndenter::kChunk + 5, 'x'));
  in.push("[1, 2]");
  in.flush();
  EXPECT_TRUE(in.stopped());
  EXPECT_EQ(calls, 1u);
}

}  // namespace
}  // namespace etpack
