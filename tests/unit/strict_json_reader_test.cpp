// The strict JSON reading the safetensors header and index share
// (read/strict_json_reader.h): one reader, each caller's error code, words
// and offset base; keys given with the offset of their opening quote; a
// decoded string's lone surrogate refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "read/strict_json_reader.h"

namespace etpack {
namespace {

const StrictJsonReader::Errors kHeaderLike{ErrorCode::kSafetensorsHeader, 8, "not JSON (", " of the text)"};

TEST(StrictJsonReader, FailuresCarryTheCallersCodeWordsAndBase) {
  const std::string text = R"({"a" 1})";
  StrictJsonReader reader(text, "f", kHeaderLike);
  Status s = reader.object([&](std::string_view, size_t) -> Status { return {}; });
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kSafetensorsHeader);
  EXPECT_EQ(s.error().message, "f: not JSON (JSON: expected ':' at offset 5 of the text) at offset 13");

  StrictJsonReader index(text, "i", {ErrorCode::kSafetensorsIndex, 0, "not JSON (", ")"});
  Status t = index.object([&](std::string_view, size_t) -> Status { return {}; });
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, ErrorCode::kSafetensorsIndex);
  EXPECT_EQ(t.error().message, "i: not JSON (JSON: expected ':' at offset 5) at offset 5");
}

TEST(StrictJsonReader, ObjectsGiveKeysWithTheirOffsetsAndArraysTheirItems) {
  const std::string text = R"({ "a": [1, 2],  "b\u0041": []} )";
  StrictJsonReader reader(text, "f", kHeaderLike);
  std::vector<std::string> keys;
  std::vector<size_t> at;
  std::vector<size_t> items;
  Status s = reader.object([&](std::string_view key, size_t key_at) -> Status {
    keys.emplace_back(key);
    at.push_back(key_at);
    EXPECT_EQ(reader.decoded(key), key == "bA");
    return reader.array([&](size_t i) -> Status {
      items.push_back(i);
      return reader.json(reader.lex().skip_value(0, 1));
    });
  });
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_TRUE(reader.lex().at_end());
  EXPECT_EQ(keys, (std::vector<std::string>{"a", "bA"}));
  EXPECT_EQ(at, (std::vector<size_t>{2, 16}));
  EXPECT_EQ(items, (std::vector<size_t>{0, 1}));
}

TEST(StrictJsonReader, RefusesANonStringKeyAndALoneSurrogateEscape) {
  const std::string bare = R"({"a": 1, 2: 3})";
  StrictJsonReader reader(bare, "f", kHeaderLike);
  Status s = reader.object([&](std::string_view, size_t) { return reader.json(reader.lex().skip_value(0, 1)); });
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "f: expected a member name at offset 17");

  const std::string lone = R"("x\ud800")";
  StrictJsonReader strings(lone, "f", kHeaderLike);
  auto r = strings.string();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "f: a string holds a lone surrogate escape at offset 17");
}

}  // namespace
}  // namespace etpack
