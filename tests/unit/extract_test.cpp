// extract: each delegate's blob comes back byte for byte from where inspect
// says it is (inline data or a segment), and bad requests are refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/sha256.h"
#include "ops/extract.h"
#include "inspect/inspect.h"
#include "test_files.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;

std::vector<uint8_t> flatten(const Cord& cord) {
  std::vector<uint8_t> out;
  for (const Cord::Piece& p : cord.pieces()) {
    if (p.kind == Cord::Piece::Kind::kZeros) {
      out.insert(out.end(), p.zeros, 0);
    } else {
      out.insert(out.end(), p.bytes.data(), p.bytes.data() + p.bytes.size());
    }
  }
  return out;
}

std::vector<fs::path> pte_files() {
  std::vector<fs::path> out;
  for (const fs::path& root : {fs::path(ETPACK_CONFORMANCE_DIR), fs::path(ETPACK_ARTIFACTS_DIR)})
    for (const auto& e : fs::recursive_directory_iterator(root))
      if (e.path().extension() == ".pte") out.push_back(e.path());
  return out;
}

TEST(Extract, EveryDelegateMatchesInspectsRange) {
  size_t inline_seen = 0, segment_seen = 0;
  for (const fs::path& path : pte_files()) {
    SCOPED_TRACE(path.string());
    const std::vector<uint8_t> bytes = testing::read_bytes(path);
    const Blob file = Blob::view(bytes.data(), bytes.size());
    Result<Json> summary = inspect_pte(file);
    if (!summary.ok()) continue;  // the error vectors' outputs are not programs
    uint64_t global = 0;
    for (const Json& method : summary->find("methods")->items()) {
      for (const Json& d : method.find("delegates")->items()) {
        const std::optional<uint64_t> offset = d.find("offset")->as_uint64();
        const uint64_t size = *d.find("size")->as_uint64();
        ASSERT_TRUE(offset || size == 0) << write_json(d);
        const std::string expected = sha256_hex(bytes.data() + offset.value_or(0), size);
        // Counted over the whole program, and within the method by name.
        Result<ExtractedDelegate> got = extract_delegate(FileSource::in_memory(file), std::nullopt, global);
        ASSERT_TRUE(got.ok()) << got.error().message;
        const std::vector<uint8_t> blob = flatten(got->bytes);
        EXPECT_EQ(blob.size(), size);
        EXPECT_EQ(sha256_hex(blob.data(), blob.size()), expected);
        EXPECT_EQ(got->offset, offset) << write_json(d);
        EXPECT_EQ(got->location, d.find("location")->text());
        EXPECT_EQ(got->index, *d.find("index")->as_uint64());
        Result<ExtractedDelegate> named = extract_delegate(FileSource::in_memory(file), method.find("name")->text(), got->index);
        ASSERT_TRUE(named.ok()) << named.error().message;
        EXPECT_EQ(flatten(named->bytes), blob);
        (got->location == "inline" ? inline_seen : segment_seen) += 1;
        ++global;
      }
    }
    Result<ExtractedDelegate> past = extract_delegate(FileSource::in_memory(file), std::nullopt, global);
    ASSERT_FALSE(past.ok());
    EXPECT_EQ(past.error().code, ErrorCode::kInvalidArgument);
  }
  EXPECT_GT(inline_seen, 0u);
  EXPECT_GT(segment_seen, 0u);
}

TEST(Extract, RefusesAMethodTheProgramLacks) {
  const std::vector<uint8_t> bytes = testing::read_bytes(fs::path(ETPACK_CONFORMANCE_DIR) / "05_delegate_inline" / "out.pte");
  Result<ExtractedDelegate> got = extract_delegate(FileSource::in_memory(Blob::view(bytes.data(), bytes.size())), std::string("nope"), 0);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(got.error().message.find("nope"), std::string::npos);
}

TEST(Extract, RefusesASegmentPastTheEndOfTheFile) {
  std::vector<uint8_t> bytes = testing::read_bytes(fs::path(ETPACK_CONFORMANCE_DIR) / "06_delegates_extracted_dedup" / "out.pte");
  ASSERT_FALSE(bytes.empty());
  Result<Json> summary = inspect_pte(Blob::view(bytes.data(), bytes.size()));
  ASSERT_TRUE(summary.ok());
  const Json& d = summary->find("methods")->items()[0].find("delegates")->items()[0];
  ASSERT_EQ(d.find("location")->text(), "segment");
  // Cut the file inside the blob: the reference now runs past the end.
  bytes.resize(d.find("offset")->as_uint64().value_or(0) + 1);
  Blob cut = Blob::view(bytes.data(), bytes.size());
  Result<ExtractedDelegate> got = extract_delegate(FileSource::in_memory(cut), std::nullopt, 0);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().code, ErrorCode::kMalformedFile);
  EXPECT_NE(got.error().message.find("past the end"), std::string::npos);
}

}  // namespace
}  // namespace etpack
