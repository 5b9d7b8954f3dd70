// A .pte without eh00 is the runtime's flatbuffer whole, but when its
// flatbuffer verifies within a prefix ending long before the file does, the
// rest is trailing bytes: reported as TRAILING_BYTES (as for files with a
// header) and never read. The end is found from the bytes alone, so a head
// read in rounds and the whole file in memory give the same verdict.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "read/file_source.h"
#include "read/pte_reader.h"
#include "validate/validate.h"
#include "test_files.h"

namespace etpack {
namespace {

std::vector<uint8_t> add_pte() { return testing::read_bytes(std::string(ETPACK_ARTIFACTS_DIR) + "/add.pte"); }

// The head a host reads: probe, then ask again while the answer is larger.
uint64_t head_in_rounds(const std::vector<uint8_t>& bytes, int& rounds) {
  uint64_t have = std::min<uint64_t>(bytes.size(), kPteProbeBytes);
  rounds = 0;
  for (;;) {
    auto size = pte_head_size(Blob::view(bytes.data(), static_cast<size_t>(have)), bytes.size());
    EXPECT_TRUE(size.ok());
    ++rounds;
    if (!size.ok() || *size <= have) return size.ok() ? *size : have;
    have = *size;
  }
}

const Finding* find(const std::vector<Finding>& list, const std::string& code) {
  for (const Finding& f : list)
    if (f.code == code) return &f;
  return nullptr;
}

TEST(HeadlessBounds, PaddedProgramEndsWhereItsFlatbufferVerifies) {
  const std::vector<uint8_t> add = add_pte();
  ASSERT_GT(add.size(), 100u);
  ASSERT_NE(std::string(add.begin() + 8, add.begin() + 12), "eh00");
  std::vector<uint8_t> padded = add;
  padded.resize(8u << 20, 0);  // 8 MiB of zeros after a ~1 KB program
  int rounds = 0;
  const uint64_t head = head_in_rounds(padded, rounds);
  EXPECT_LE(head, add.size());
  EXPECT_GE(head, add.size() - 8);  // the builder's last padding may lie past what the verifier needs
  EXPECT_LE(rounds, 3);

  // From the head alone (the rest external, never read) and from memory: the same report.
  Blob::External info;
  info.source = 9;  // no host: a read past the head would fail
  const FileSource external{Blob::view(padded.data(), static_cast<size_t>(head)), Blob::external(info, padded.size())};
  auto from_head = validate_artifacts(external, {});
  ASSERT_TRUE(from_head.ok()) << from_head.error().message;
  const ValidationReport in_memory = validate_artifacts(Blob::view(padded.data(), padded.size()), {});
  ASSERT_EQ(from_head->errors.size(), in_memory.errors.size());
  const Finding* trailing = find(from_head->warnings, finding::kTrailingBytes);
  ASSERT_NE(trailing, nullptr);
  EXPECT_EQ(trailing->offset, std::optional<uint64_t>(head));
  EXPECT_NE(trailing->message.find(std::to_string(padded.size() - head)), std::string::npos) << trailing->message;
  const Finding* again = find(in_memory.warnings, finding::kTrailingBytes);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->offset, trailing->offset);
  // The unpadded file is unchanged: no trailing bytes.
  const ValidationReport plain = validate_artifacts(Blob::view(add.data(), add.size()), {});
  EXPECT_EQ(find(plain.warnings, finding::kTrailingBytes), nullptr);
  EXPECT_TRUE(plain.ok());
  EXPECT_TRUE(in_memory.ok());
}

TEST(HeadlessBounds, SmallFilesAndProgramsThatReachTheEndAreWhole) {
  std::vector<uint8_t> padded = add_pte();
  padded.resize(100000, 0);  // within 2 * kHeadlessWindow: the file is the program
  auto size = pte_head_size(Blob::view(padded.data(), 64), padded.size());
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(*size, padded.size());
  // Garbage that never verifies: read whole, in rounds growing fourfold.
  std::vector<uint8_t> junk(1u << 20, 0xab);
  std::copy(padded.begin(), padded.begin() + 8, junk.begin());  // root offset + ET12
  int rounds = 0;
  EXPECT_EQ(head_in_rounds(junk, rounds), junk.size());
  EXPECT_LE(rounds, 6);
}

}  // namespace
}  // namespace etpack
