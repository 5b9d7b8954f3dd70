// Header fields the runtime reads past (validate_header_sizes.h): an
// eh00/FH01 length above the minimum, a program_size/flatbuffer_size past
// the segment base while the flatbuffer lies before it, are warnings; a
// moved segment base stays an error. One field of a real file patched.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/le_bytes.h"
#include "model/value_json.h"
#include "read/ptd_reader.h"
#include "read/pte_reader.h"
#include "validate/validate.h"
#include "unit/test_files.h"
#include "unit/validate_findings.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;
using testing::describe;
using testing::conformance;
using testing::artifact;
using testing::view;
using testing::with_code;
using testing::expect_error;
using testing::read_bytes;

// arduino_add.pte: eh00 at 8 (length 32), segments after the program.
TEST(ValidateRuntimeLoad, Eh00LengthAboveTheMinimumIsAWarning) {
  std::vector<uint8_t> file = read_bytes(artifact("arduino_add.pte"));
  for (uint32_t length : {40u, 4128u}) {
    write_le<uint32_t>(&file[12], length);
    ValidationReport r = validate_artifacts(view(file), {});
    EXPECT_TRUE(r.ok()) << length << ": " << describe(r);
    EXPECT_EQ(with_code(r.warnings, finding::kHeaderLengthUnusual).size(), 1u) << describe(r);
  }
}

TEST(ValidateRuntimeLoad, Eh00ProgramSizeLargerIsAWarning) {
  const std::vector<uint8_t> file = read_bytes(artifact("arduino_add.pte"));
  const uint64_t program_size = read_le<uint64_t>(&file[16]), base = read_le<uint64_t>(&file[24]);
  ASSERT_LT(program_size + 8, base);
  // Still before the base: nothing to say.
  std::vector<uint8_t> raised = file;
  write_le<uint64_t>(&raised[16], program_size + 8);
  ValidationReport r = validate_artifacts(view(raised), {});
  EXPECT_TRUE(r.ok()) << describe(r);
  // Past the base, up to the file end: a warning; the program reads back the same.
  for (uint64_t size : {base + 1, uint64_t{file.size()}}) {
    raised = file;
    write_le<uint64_t>(&raised[16], size);
    r = validate_artifacts(view(raised), {});
    EXPECT_TRUE(r.ok()) << size << ": " << describe(r);
    auto found = with_code(r.warnings, finding::kHeaderSizeLarger);
    ASSERT_EQ(found.size(), 1u) << describe(r);
    EXPECT_EQ(found[0]->path, "header.program_size");
    auto a = deserialize_pte_binary(view(raised));
    auto b = deserialize_pte_binary(view(file));
    ASSERT_TRUE(a.ok() && b.ok()) << (a.ok() ? "" : a.error().message);
    EXPECT_EQ(write_json(table_to_json(a->program)), write_json(table_to_json(b->program)));
  }
  // The base moved back into the flatbuffer stays an error.
  std::vector<uint8_t> moved = file;
  write_le<uint64_t>(&moved[24], program_size - 16);
  EXPECT_FALSE(validate_artifacts(view(moved), {}).ok());
}

// model_weights.ptd of 09: FH01 at 8 (length 40), flatbuffer at 48.
TEST(ValidateRuntimeLoad, Fh01LengthAboveTheMinimumIsAWarning) {
  const std::vector<uint8_t> file = read_bytes(conformance("09_named_external_one_tag") / "model_weights.ptd");
  ASSERT_EQ(read_le<uint32_t>(&file[12]), 40u);
  for (uint32_t length : {41u, 48u, 80u, 168u}) {
    std::vector<uint8_t> longer = file;
    write_le<uint32_t>(&longer[12], length);
    ValidationReport r = validate_ptd("model_weights.ptd", view(longer));
    EXPECT_TRUE(r.ok()) << length << ": " << describe(r);
    EXPECT_EQ(with_code(r.warnings, finding::kHeaderLengthUnusual).size(), 1u) << describe(r);
  }
}

TEST(ValidateRuntimeLoad, Fh01FlatbufferSizeLargerIsAWarning) {
  const std::vector<uint8_t> file = read_bytes(conformance("09_named_external_one_tag") / "model_weights.ptd");
  const uint64_t offset = read_le<uint64_t>(&file[16]), base = read_le<uint64_t>(&file[32]);
  std::vector<uint8_t> raised = file;
  write_le<uint64_t>(&raised[24], file.size() - offset);  // the flatbuffer "runs" to the file end
  ValidationReport r = validate_ptd("model_weights.ptd", view(raised));
  EXPECT_TRUE(r.ok()) << describe(r);
  auto found = with_code(r.warnings, finding::kHeaderSizeLarger);
  ASSERT_EQ(found.size(), 1u) << describe(r);
  EXPECT_EQ(found[0]->path, "header.flatbuffer_size");
  auto a = deserialize_ptd(view(raised));
  ASSERT_TRUE(a.ok()) << a.error().message;
  // The base moved back into the flatbuffer stays an error.
  std::vector<uint8_t> moved = file;
  write_le<uint64_t>(&moved[32], base - 64);
  EXPECT_FALSE(validate_ptd("model_weights.ptd", view(moved)).ok());
}

TEST(ValidateRuntimeLoad, Fh01SegmentBaseMovedBackIsAnError) {
  // Moved back by 4 into the 8 padding bytes after the flatbuffer (ends at
  // 376, base 384): the runtime loads every tensor from 4 bytes too early.
  std::vector<uint8_t> file = read_bytes(conformance("09_named_external_one_tag") / "model_weights.ptd");
  const uint64_t base = read_le<uint64_t>(&file[32]);
  ASSERT_TRUE(validate_ptd("model_weights.ptd", view(file)).ok());
  write_le<uint64_t>(&file[32], base - 4);
  ValidationReport r = validate_ptd("model_weights.ptd", view(file));
  expect_error(r, finding::kSegmentBaseMoved, "header.segment_base_offset", "other bytes");
}

}  // namespace
}  // namespace etpack
