// inspect's reply to the JS glue: the long lists in columns, a segment map
// range naming its segment instead of repeating the segment's owners, and
// summary_from_reply giving back the documented shape exactly.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/json.h"
#include "read/inspect.h"
#include "unit/test_files.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;

const fs::path kEverything = fs::path(ETPACK_CONFORMANCE_DIR) / "13_everything";

TEST(InspectReply, LongListsComeAsColumnsAndMapRangesNameTheirSegment) {
  Blob file = testing::load_file(kEverything / "out.pte");
  auto reply = inspect_pte_reply(FileSource::in_memory(file));
  ASSERT_TRUE(reply.ok()) << reply.error().message;
  auto parsed = parse_json(*reply);
  ASSERT_TRUE(parsed.ok());
  const Json& named = *parsed->find("namedData");
  EXPECT_EQ(named.find("rows")->as_uint64(), 5u);
  EXPECT_EQ(named.find("columns")->find("key")->items().size(), 5u);
  EXPECT_EQ(named.find("columns")->find("segment")->items().size(), 5u);
  const Json& segments = *parsed->find("segments")->find("columns");
  const Json& map = *parsed->find("segmentMap")->find("columns");
  const auto& owners = map.find("owners")->items();
  const auto& segment = map.find("segment")->items();
  size_t by_index = 0;
  for (size_t i = 0; i < owners.size(); ++i) {
    if (!owners[i].is_number()) continue;
    // A number names the range's own segment, whose owners the segment list holds.
    EXPECT_EQ(owners[i].as_uint64(), segment[i].as_uint64());
    EXPECT_TRUE(segments.find("owners")->items()[*owners[i].as_uint64()].is_array());
    ++by_index;
  }
  EXPECT_GT(by_index, 0u);
}

TEST(InspectReply, SummaryFromReplyIsTheDocumentedShape) {
  Blob file = testing::load_file(kEverything / "out.pte");
  auto summary = inspect_pte(file);
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  const Json& map = *summary->find("segmentMap");
  ASSERT_TRUE(map.is_array());
  const Json& segments = *summary->find("segments");
  for (const Json& range : map.items()) {
    ASSERT_TRUE(range.find("owners")->is_array());
    const Json* index = range.find("segment");
    if (!index->is_number()) continue;
    EXPECT_TRUE(range.find("owners")->equals(*segments.items()[*index->as_uint64()].find("owners")));
  }
  std::string keys;
  for (const auto& [key, value] : map.items()[0].members()) keys += key + " ";
  EXPECT_EQ(keys, "start end size kind segment owners clipped ");
  auto ptd = inspect_ptd(testing::load_file(kEverything / "model.ptd"));
  ASSERT_TRUE(ptd.ok());
  keys.clear();
  for (const auto& [key, value] : ptd->find("namedData")->items()[0].members()) keys += key + " ";
  EXPECT_EQ(keys, "key segment size dtype shape dimOrder ");
}

}  // namespace
}  // namespace etpack
