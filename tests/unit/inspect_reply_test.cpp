// inspect's reply to the JS glue: the long lists in columns (names joined
// into one string), a segment map range naming its segment instead of
// repeating the segment's owners, and summary_from_reply giving back the
// documented shape exactly.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/json.h"
#include "inspect/inspect.h"
#include "inspect/layout_json.h"
#include "unit/test_files.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;

const fs::path kEverything = fs::path(ETPACK_CONFORMANCE_DIR) / "13_everything";

TEST(InspectReply, LongListsComeAsColumnsAndMapRangesNameTheirSegment) {
  Blob file = testing::load_file(kEverything / "out.pte");
  auto reply = inspect_pte_reply(FileSource::in_memory(file));
  ASSERT_TRUE(reply.ok()) << reply.error().message;
  // The JSON, and beside it the joined names (keys, then segment owners).
  auto parsed = parse_json(reply->json);
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(reply->names.size(), 2u);
  auto summary = inspect_pte(file);
  ASSERT_TRUE(summary.ok());
  const std::string& first_key = summary->find("namedData")->find("key")->items()[0].text();
  EXPECT_EQ(reply->names[0].substr(0, first_key.size()), first_key);
  const Json& named = *parsed->find("namedData");
  EXPECT_EQ(named.find("rows")->as_uint64(), 5u);
  // Keys joined: which of the names they are, and each key's length.
  EXPECT_EQ(named.find("columns")->find("key")->find("names")->as_uint64(), 0u);
  EXPECT_EQ(named.find("columns")->find("key")->find("lengths")->items().size(), 5u);
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
    EXPECT_LT(*owners[i].as_uint64(), segments.find("owners")->find("counts")->items().size());
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
    const Json& seg = segments.items()[*index->as_uint64()];
    EXPECT_TRUE(range.find("owners")->equals(*seg.find("owners")));
    EXPECT_TRUE(range.find("ownerCount")->equals(*seg.find("ownerCount")));
  }
  std::string keys;
  for (const auto& [key, value] : map.items()[0].members()) keys += key + " ";
  EXPECT_EQ(keys, "start end size kind segment owners ownerCount clipped ");
  auto ptd = inspect_ptd(testing::load_file(kEverything / "model.ptd"));
  ASSERT_TRUE(ptd.ok());
  // namedData in columns, each with a value per entry, and the distinct layouts.
  keys.clear();
  const Json& named = *ptd->find("namedData");
  for (const auto& [key, value] : named.members()) keys += key + " ";
  EXPECT_EQ(keys, "count key segment size layout layouts ");
  EXPECT_EQ(named.find("count")->as_uint64(), 3u);
  for (const char* column : {"key", "segment", "size", "layout"}) EXPECT_EQ(named.find(column)->items().size(), 3u) << column;
  EXPECT_EQ(write_json(named.find("layouts")->items()[0]), R"({"dtype": "Float", "shape": [3, 3], "dimOrder": [0, 1]})");
}

// A million entries of one layout write it once: layout is a column of
// indices, {"same": 0} in the reply.
TEST(InspectReply, NamedDataLayoutsAreWrittenOncePerDistinctLayout) {
  auto reply = inspect_ptd_reply(FileSource::in_memory(testing::load_file(kEverything / "model.ptd")));
  ASSERT_TRUE(reply.ok()) << reply.error().message;
  auto parsed = parse_json(reply->json);
  ASSERT_TRUE(parsed.ok());
  const Json& named = *parsed->find("namedData");
  const Json& layout = *named.find("columns")->find("layout");
  ASSERT_TRUE(layout.is_array()) << write_json(layout);
  std::vector<std::string> indices;
  for (const Json& i : layout.items()) indices.push_back(write_json(i));
  const size_t distinct = named.find("layouts")->items().size();
  for (const std::string& i : indices) EXPECT_TRUE(i == "null" || std::stoul(i) < distinct) << i;
}

// Joined names come back as each name alone would: null stays null, a
// four-byte sequence counts two UTF-16 units, and invalid UTF-8 reads as a
// TextDecoder reads it (U+FFFD per maximal invalid subpart), not merged with
// the next name.
TEST(InspectReply, JoinedNamesSplitBackExactly) {
  ColumnsText columns({"key", "owners"});
  const std::string names[] = {"a\"b\\c\n", "\xF0\x9F\x98\x80x", "tail\xE2\x82", "\xAC\xE2\x82\xAC", ""};
  for (const std::string& name : names) {
    columns.joined_name(0, &name);
    columns.list_name(1, name);
    columns.list_name(1, name);
    columns.end_list(1);
    columns.end_row();
  }
  columns.joined_name(0, nullptr);
  columns.end_list(1);
  columns.end_row();
  Json summary = Json::object();
  summary.set("segments", Json::null());  // a table of rows
  std::vector<std::pair<std::string, ColumnsText>> tables;
  tables.emplace_back("segments", std::move(columns));
  const InspectReply reply = write_with_tables(summary, std::move(tables));
  EXPECT_NE(reply.json.find("\"lengths\": [6, 3, 5, 2, 0, -1]"), std::string::npos) << reply.json;
  auto parsed = summary_from_reply(reply, {"segments"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  const auto& rows = parsed->find("segments")->items();
  ASSERT_EQ(rows.size(), 6u);
  const std::string decoded[] = {"a\"b\\c\n", "\xF0\x9F\x98\x80x", "tail\xEF\xBF\xBD", "\xEF\xBF\xBD\xE2\x82\xAC", ""};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(rows[i].find("key")->text(), decoded[i]) << i;
    ASSERT_EQ(rows[i].find("owners")->items().size(), 2u);
    EXPECT_EQ(rows[i].find("owners")->items()[1].text(), decoded[i]) << i;
  }
  EXPECT_TRUE(rows[5].find("key")->is_null());
  EXPECT_TRUE(rows[5].find("owners")->items().empty());
}

}  // namespace
}  // namespace etpack
