// inspect: the summary of real files and conformance outputs, and the
// segment map's promise (every byte of the file exactly once, in order).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "core/json.h"
#include "inspect/inspect.h"
#include "unit/test_files.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;

using testing::load_file;

uint64_t num(const Json& j, const char* key) {
  const Json* v = j.find(key);
  EXPECT_NE(v, nullptr) << key;
  return v ? v->as_uint64().value_or(UINT64_MAX) : UINT64_MAX;
}

std::string str(const Json& j, const char* key) {
  const Json* v = j.find(key);
  return v && v->is_string() ? v->text() : "<none>";
}

// The map starts at 0, each range starts where the previous ended, none is
// empty, the last ends at the file size; categories add up to the file size.
void expect_covers_file(const Json& summary, const std::string& what) {
  uint64_t size = num(summary, "fileSize");
  const Json* map = summary.find("segmentMap");
  ASSERT_TRUE(map && map->is_array()) << what;
  uint64_t cursor = 0;
  for (const Json& r : map->items()) {
    EXPECT_EQ(num(r, "start"), cursor) << what;
    EXPECT_GT(num(r, "end"), num(r, "start")) << what;
    EXPECT_EQ(num(r, "size"), num(r, "end") - num(r, "start")) << what;
    cursor = num(r, "end");
  }
  EXPECT_EQ(cursor, size) << what;
  uint64_t total = 0;
  for (const auto& [name, bytes] : summary.find("bytesByCategory")->members()) total += bytes.as_uint64().value_or(0);
  EXPECT_EQ(total, size) << what;
}

TEST(Inspect, ArduinoAddListsMethodOperatorsConstantsAndMap) {
  Blob file = load_file(fs::path(ETPACK_ARTIFACTS_DIR) / "arduino_add.pte");
  auto r = inspect_pte(file);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Json& j = r.value();
  EXPECT_EQ(str(j, "format"), "pte");
  EXPECT_EQ(num(j, "fileSize"), file.size());
  const Json* header = j.find("header");
  ASSERT_TRUE(header && header->is_object());
  EXPECT_EQ(num(*header, "programSize"), 1040u);
  EXPECT_EQ(num(*header, "segmentBaseOffset"), 1152u);
  EXPECT_EQ(num(j, "segmentAlignment"), 128u);

  const Json& methods = *j.find("methods");
  ASSERT_EQ(methods.items().size(), 1u);
  const Json& forward = methods.items()[0];
  EXPECT_EQ(str(forward, "name"), "forward");
  EXPECT_EQ(num(forward, "instructionCount"), 1u);
  const Json& ops = *forward.find("operators");
  ASSERT_EQ(ops.items().size(), 1u);
  EXPECT_EQ(str(ops.items()[0], "name"), "aten::add");
  EXPECT_EQ(str(ops.items()[0], "overload"), "out");
  EXPECT_EQ(num(ops.items()[0], "count"), 1u);
  const Json& inputs = *forward.find("inputs");
  ASSERT_EQ(inputs.items().size(), 1u);
  EXPECT_EQ(str(inputs.items()[0], "type"), "Tensor");
  EXPECT_EQ(str(inputs.items()[0], "dtype"), "Float");
  EXPECT_EQ(write_json(*inputs.items()[0].find("shape")), "[3]");

  const Json& constants = *j.find("constants");
  EXPECT_EQ(str(constants, "storage"), "segment");
  EXPECT_EQ(num(constants, "count"), 1u);
  EXPECT_EQ(num(constants, "totalBytes"), 4u);
  const Json& largest = *constants.find("largest");
  ASSERT_EQ(largest.items().size(), 1u);
  EXPECT_EQ(num(largest.items()[0], "bytes"), 4u);
  EXPECT_EQ(str(largest.items()[0], "where"), "constant_segment.offsets[1]");

  expect_covers_file(j, "arduino_add.pte");
  const Json& map = *j.find("segmentMap");
  std::vector<std::string> kinds;
  for (const Json& region : map.items()) kinds.push_back(str(region, "kind"));
  EXPECT_EQ(kinds, (std::vector<std::string>{"preamble", "header", "padding", "flatbuffer", "padding", "constant"}));
  EXPECT_EQ(write_json(*map.items().back().find("owners")), "[\"constant_segment\"]");
  const Json& bytes = *j.find("bytesByCategory");
  EXPECT_EQ(num(bytes, "constants"), 4u);
  EXPECT_EQ(num(bytes, "header"), 40u);
}

TEST(Inspect, InlineConstantsAreCutOutOfTheFlatbuffer) {
  auto r = inspect_pte(load_file(fs::path(ETPACK_ARTIFACTS_DIR) / "module_linear_no_constant_segment.pte"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(str(*r->find("constants"), "storage"), "inline");
  EXPECT_EQ(num(*r->find("constants"), "count"), 2u);
  EXPECT_EQ(r->find("header")->type(), Json::Type::kNull);
  size_t inline_constants = 0;
  for (const Json& region : r->find("segmentMap")->items())
    if (str(region, "kind") == "constant") ++inline_constants;
  EXPECT_EQ(inline_constants, 2u);
  EXPECT_EQ(num(*r->find("bytesByCategory"), "constants"), num(*r->find("constants"), "totalBytes"));
  expect_covers_file(r.value(), "module_linear");
}

TEST(Inspect, EverythingCaseShowsEachKindOfSegment) {
  fs::path dir = fs::path(ETPACK_CONFORMANCE_DIR) / "13_everything";
  auto r = inspect_pte(load_file(dir / "out.pte"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Json& j = r.value();
  std::vector<std::string> segment_kinds;
  for (const Json& s : j.find("segments")->items()) segment_kinds.push_back(str(s, "kind"));
  EXPECT_EQ(segment_kinds, (std::vector<std::string>{"constant", "mutable", "delegate", "delegate", "namedData",
                                                     "namedData", "namedData", "namedData"}));
  const Json& delegates = *j.find("methods")->items()[0].find("delegates");
  ASSERT_EQ(delegates.items().size(), 3u);
  EXPECT_EQ(str(delegates.items()[0], "location"), "segment");
  EXPECT_EQ(num(delegates.items()[0], "dataIndex"), num(delegates.items()[1], "dataIndex"));  // deduplicated
  EXPECT_EQ(num(*j.find("mutableData"), "count"), 2u);
  EXPECT_EQ(j.find("namedData")->find("count")->as_uint64(), 5u);
  ASSERT_EQ(j.find("externalTensors")->items().size(), 2u);
  EXPECT_EQ(str(j.find("externalTensors")->items()[0], "name"), "lin.weight");
  EXPECT_EQ(num(j.find("externalTensors")->items()[0], "size"), 36u);
  expect_covers_file(j, "13_everything/out.pte");

  auto ptd = inspect_ptd(load_file(dir / "model.ptd"));
  ASSERT_TRUE(ptd.ok()) << ptd.error().message;
  EXPECT_EQ(str(ptd.value(), "format"), "ptd");
  EXPECT_EQ(num(ptd.value(), "segmentAlignment"), 128u);
  const Json& named = *ptd->find("namedData");  // columns
  ASSERT_EQ(named.find("key")->items().size(), 3u);
  EXPECT_EQ(named.find("key")->items()[0].text(), "lin.weight");
  const Json& layout = named.find("layouts")->items()[*named.find("layout")->items()[0].as_uint64()];
  EXPECT_EQ(str(layout, "dtype"), "Float");
  EXPECT_EQ(write_json(*layout.find("shape")), "[3, 3]");
  EXPECT_TRUE(named.find("layout")->items()[2].is_null());  // no layout
  expect_covers_file(ptd.value(), "13_everything/model.ptd");
}

TEST(Inspect, EveryFileIsSummarizedAndCovered) {
  size_t files = 0;
  for (const char* root : {ETPACK_ARTIFACTS_DIR, ETPACK_CONFORMANCE_DIR}) {
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      std::string ext = e.path().extension().string();
      if (ext != ".pte" && ext != ".ptd") continue;
      ++files;
      Blob file = load_file(e.path());
      auto r = ext == ".pte" ? inspect_pte(file) : inspect_ptd(file);
      ASSERT_TRUE(r.ok()) << e.path() << ": " << r.error().message;
      expect_covers_file(r.value(), e.path().string());
      EXPECT_EQ(num(*r->find("bytesByCategory"), "unused"), 0u) << e.path();
    }
  }
  EXPECT_GT(files, 40u);
}

TEST(Inspect, UnreadableFilesAreCodedErrors) {
  std::vector<uint8_t> junk(64, 0xAB);
  auto pte = inspect_pte(Blob::view(junk.data(), junk.size()));
  ASSERT_FALSE(pte.ok());
  EXPECT_EQ(pte.error().code, ErrorCode::kMalformedFile);
  auto ptd = inspect_ptd(Blob::view(junk.data(), junk.size()));
  ASSERT_FALSE(ptd.ok());
  EXPECT_EQ(ptd.error().code, ErrorCode::kMalformedFile);
  junk[4] = 'E', junk[5] = 'T', junk[6] = '1', junk[7] = '1';
  auto old = inspect_pte(Blob::view(junk.data(), junk.size()));
  ASSERT_FALSE(old.ok());
  EXPECT_EQ(old.error().code, ErrorCode::kUnsupportedVersion);
}

}  // namespace
}  // namespace etpack
