// model.safetensors.index.json read by the core (read/safetensors_index.h):
// shards in order of first mention, and every strictness the header has:
// keys unique at any depth, strict UTF-8, string shard names in the folder.
#include <gtest/gtest.h>

#include <string>

#include "read/safetensors_index.h"

namespace etpack {
namespace {

Error refused(const std::string& text) {
  auto r = read_safetensors_index(text, "i.json");
  EXPECT_FALSE(r.ok()) << text;
  if (r.ok()) return make_error(ErrorCode::kInternal, "accepted");
  EXPECT_EQ(r.error().code, ErrorCode::kSafetensorsIndex) << r.error().message;
  return r.take_error();
}

TEST(SafetensorsIndex, ShardsInOrderOfFirstMention) {
  auto r = read_safetensors_index(
      R"({"metadata": {"total_size": 48, "nested": [{"a": 1}, null, 2.5e3]},
          "weight_map": {"w": "b.safetensors", "x": "a.safetensors", "__proto__": "b.safetensors"}})",
      "i.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].file, "b.safetensors");
  EXPECT_EQ((*r)[0].tensors, (std::vector<std::string>{"w", "__proto__"}));
  EXPECT_EQ((*r)[1].file, "a.safetensors");
  EXPECT_EQ((*r)[1].tensors, (std::vector<std::string>{"x"}));
}

TEST(SafetensorsIndex, DuplicateKeysAnywhereAreRefusedWithTheirOffset) {
  Error twice = refused(R"({"weight_map": {"w": "a", "w": "b"}})");
  EXPECT_NE(twice.message.find("key \"w\" appears twice"), std::string::npos) << twice.message;
  EXPECT_NE(twice.message.find("at offset 26"), std::string::npos) << twice.message;
  EXPECT_NE(refused(R"({"weight_map": {}, "weight_map": {"w": "a"}})").message.find("\"weight_map\" appears twice"),
            std::string::npos);
  EXPECT_NE(refused(R"({"metadata": [{"k": 1, "k": 1}], "weight_map": {}})").message.find("\"k\" appears twice"),
            std::string::npos);
}

TEST(SafetensorsIndex, ShapeTextAndNamesAreStrict) {
  EXPECT_NE(refused(R"({"metadata": {}})").message.find("no weight_map"), std::string::npos);
  EXPECT_NE(refused(R"({"weight_map": []})").message.find("not an object"), std::string::npos);
  EXPECT_NE(refused(R"({"weight_map": {"w": 1}})").message.find("is not a string"), std::string::npos);
  for (const char* shard : {"", ".", "..", "../a", "a/b", "a\\\\b"})
    EXPECT_NE(refused(std::string(R"({"weight_map": {"w": ")") + shard + "\"}}").message.find("not a file name"),
              std::string::npos)
        << shard;
  EXPECT_NE(refused(R"({"weight_map": {"\ud800": "a"}})").message.find("lone surrogate"), std::string::npos);
  EXPECT_NE(refused("{\"weight_map\": {\"\xff\": \"a\"}}").message.find("not valid UTF-8"), std::string::npos);
  EXPECT_NE(refused(R"({"weight_map": {}} {})").message.find("bytes after"), std::string::npos);
  EXPECT_NE(refused(R"([])").message.find("not a JSON object"), std::string::npos);
  refused(R"({"weight_map": {"w": "a",}})");
  refused(R"({"weight_map": {"w": "a"})");
  std::string deep = "{\"metadata\": ";
  for (int i = 0; i < 100; ++i) deep += "[";
  EXPECT_NE(refused(deep).message.find("nested more than 64"), std::string::npos);
}

}  // namespace
}  // namespace etpack
