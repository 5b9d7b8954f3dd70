// validate = the runtime's verdict, round 2 (issue 37): a .pte's segments
// as the runtime reads them (upstream runtime/executor/program.cpp,
// pte_data_map.cpp). It never checks the segment table as a whole: it loads
// the constant segment (Program::load), each SEGMENT delegate's (init), a
// named_data entry's segment when a backend asks for its key (get_data),
// and mutable data by slices (load_mutable_subsegment_into). A fault in a
// segment nothing loads is a warning; in one it loads, an error. So is an
// EXTERNAL tensor's .ptd segment, read from its start. Each test patches a
// real vector and asserts code, path and byte offset.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "core/le_bytes.h"
#include "encode/pte_writer.h"
#include "read/pte_reader.h"
#include "validate/validate.h"
#include "unit/flatbuffer_walk.h"
#include "unit/test_files.h"
#include "unit/validate_findings.h"

namespace etpack {
namespace {

using testing::conformance;
using testing::describe;
using testing::load_file;
using testing::read_bytes;
using testing::view;
using testing::Walk;
using testing::with_code;

// Program (schema/program.fbs): segments 4, mutable_data_segments 6,
// named_data 7; DataSegment.offset 0, size 1; NamedData.segment_index 1.
// FlatTensor: segments 1, named_data 2.
constexpr size_t kSegments = 4, kNamedData = 7, kOffset = 0, kSize = 1, kSegmentIndex = 1;

std::vector<uint8_t> pte_of(const char* vector) { return read_bytes(conformance(vector) / "out.pte"); }
std::vector<uint8_t> xnnpack_named() {  // upstream-made: a real XNNPACK blob whose constants are named data
  return read_bytes(std::filesystem::path(ETPACK_SOURCE_DIR) / ".." / "shared" / "delegates" / "xnnpack" /
                    "x02_linear_fp32_named" / "pte_segment" / "out.pte");
}
// eh00's segment_base_offset (bytes 24..32).
uint64_t segment_base(const std::vector<uint8_t>& b) { return read_le<uint64_t>(&b[24]); }
// Where segments[i]'s field (kOffset / kSize) lies.
size_t segment_field(const std::vector<uint8_t>& b, size_t i, size_t field) {
  Walk w{b};
  const size_t at = w.field(w.element(w.root(), kSegments, i), field);
  EXPECT_NE(at, 0u) << "segments[" << i << "] field " << field << " is absent";
  return at;
}

// The one finding of `code` in `list`, with `path` and `offset`; its message holds `text`.
void expect_one(const ValidationReport& r, const std::vector<Finding>& list, const std::string& code,
                const std::string& path, std::optional<uint64_t> offset, const std::string& text = "") {
  auto found = with_code(list, code);
  ASSERT_EQ(found.size(), 1u) << code << " in " << describe(r);
  EXPECT_EQ(found[0]->path, path) << describe(r);
  EXPECT_EQ(found[0]->offset, offset) << describe(r);
  EXPECT_NE(found[0]->message.find(text), std::string::npos) << found[0]->message;
}

const char* const kNever = "so the runtime never loads it";

// 08_named_data_pte: named data and no delegate, so no backend asks for a
// key and no segment is ever loaded. Segments 2 (offset 256, 7 bytes) and 3
// (offset 384). (It has no constant segment placeholder: judged for a build
// with the deprecated constant_buffer path, which loads it.)
TEST(ValidateRound2Segments, FaultsOfSegmentsNothingLoadsAreWarnings) {
  const char* const vector = "08_named_data_pte";
  ValidateOptions options;
  options.deprecated_constant_buffer = true;
  auto validate = [&](const std::vector<uint8_t>& b) { return validate_artifacts(view(b), {}, options); };
  // Segment 2's size past the data: a warning; segment 3, after it, is
  // judged against the segments in the data (no overlap).
  std::vector<uint8_t> b = pte_of(vector);
  write_le<uint64_t>(&b[segment_field(b, 2, kSize)], uint64_t{1} << 40);
  ValidationReport r = validate(b);
  EXPECT_TRUE(r.ok()) << describe(r);
  expect_one(r, r.warnings, finding::kSegmentOutOfBounds, "segments[2]", segment_base(b) + 256, kNever);
  EXPECT_TRUE(with_code(r.warnings, finding::kSegmentsOverlap).empty()) << describe(r);
  // Its offset past the data: segment 3 is not "before" it.
  b = pte_of(vector);
  write_le<uint64_t>(&b[segment_field(b, 2, kOffset)], uint64_t{1} << 40);
  r = validate(b);
  EXPECT_TRUE(r.ok()) << describe(r);
  expect_one(r, r.warnings, finding::kSegmentOutOfBounds, "segments[2]", segment_base(b) + (uint64_t{1} << 40), kNever);
  EXPECT_TRUE(with_code(r.warnings, finding::kSegmentsUnsorted).empty()) << describe(r);
  // Segments 2 and 3 swapped: out of order, never loaded.
  b = pte_of(vector);
  const std::vector<uint8_t> original = b;
  for (size_t field : {kOffset, kSize}) {
    const size_t two = segment_field(b, 2, field), three = segment_field(b, 3, field);
    write_le<uint64_t>(&b[two], read_le<uint64_t>(&original[three]));
    write_le<uint64_t>(&b[three], read_le<uint64_t>(&original[two]));
  }
  r = validate(b);
  EXPECT_TRUE(r.ok()) << describe(r);
  expect_one(r, r.warnings, finding::kSegmentsUnsorted, "segments[3]", segment_base(b) + 256, kNever);
  // An entry's segment_index past the segments: PteDataMap follows it only
  // for a key a backend asks for.
  b = pte_of(vector);
  Walk w{b};
  const size_t index_at = w.field(w.element(w.root(), kNamedData, 1), kSegmentIndex);  // segment 1 (0 is not stored)
  ASSERT_NE(index_at, 0u);
  write_le<uint32_t>(&b[index_at], 50000);
  r = validate(b);
  EXPECT_TRUE(r.ok()) << describe(r);
  expect_one(r, r.warnings, finding::kSegmentIndexOutOfRange, "named_data[1].segment_index", std::nullopt,
             "no delegate's backend asks for its key");
}

// x02_linear_fp32_named: XNNPACK's init asks the named data map for both
// named_data keys (its constants), so their segments are loaded: the same
// faults are errors (get_data: InvalidArgument, or the loader refuses).
TEST(ValidateRound2Segments, FaultsOfSegmentsABackendLoadsAreErrors) {
  std::vector<uint8_t> b = xnnpack_named();
  write_le<uint64_t>(&b[segment_field(b, 3, kSize)], uint64_t{1} << 40);
  ValidationReport r = validate_artifacts(view(b), {});
  const uint64_t offset3 = read_le<uint64_t>(&b[segment_field(b, 3, kOffset)]);
  expect_one(r, r.errors, finding::kSegmentOutOfBounds, "segments[3]", segment_base(b) + offset3);
  b = xnnpack_named();
  Walk w{b};
  write_le<uint32_t>(&b[w.field(w.element(w.root(), kNamedData, 1), kSegmentIndex)], 50000);
  r = validate_artifacts(view(b), {});
  expect_one(r, r.errors, finding::kSegmentIndexOutOfRange, "named_data[1].segment_index", std::nullopt);
}

// 06_delegates_extracted_dedup: segment 1 holds two XNNPACK delegates'
// blob, segment 2 a Core ML one; init loads both. Segment 1's size past
// the data is an error; segment 2 (in the data) is not blamed for it.
TEST(ValidateRound2Segments, DelegateSegmentPastTheDataIsAnError) {
  std::vector<uint8_t> b = pte_of("06_delegates_extracted_dedup");
  write_le<uint64_t>(&b[segment_field(b, 1, kSize)], uint64_t{1} << 40);
  ValidationReport r = validate_artifacts(view(b), {});
  const uint64_t offset1 = read_le<uint64_t>(&b[segment_field(b, 1, kOffset)]);
  expect_one(r, r.errors, finding::kSegmentOutOfBounds, "segments[1]", segment_base(b) + offset1);
  EXPECT_TRUE(with_code(r.errors, finding::kSegmentsOverlap).empty()) << describe(r);
}

// 04_mutable_data: segment 1 is mutable_data_segments[0]. The runtime
// checks each slice a tensor names against the recorded size, then reads it
// from the file: a size past the data changes nothing it reads (a
// warning); an offset that puts the slices past the file is an error.
TEST(ValidateRound2Segments, MutableDataIsReadBySlices) {
  std::vector<uint8_t> b = pte_of("04_mutable_data");
  write_le<uint64_t>(&b[segment_field(b, 1, kSize)], uint64_t{1} << 32);
  ValidationReport r = validate_artifacts(view(b), {});
  EXPECT_TRUE(r.ok()) << describe(r);
  const uint64_t offset1 = read_le<uint64_t>(&b[segment_field(b, 1, kOffset)]);
  expect_one(r, r.warnings, finding::kSegmentOutOfBounds, "segments[1]", segment_base(b) + offset1,
             "only by the slices its tensors name");
  EXPECT_TRUE(with_code(r.errors, finding::kSlicePaddingNotZero).empty()) << describe(r);

  b = pte_of("04_mutable_data");
  write_le<uint64_t>(&b[segment_field(b, 1, kOffset)], uint64_t{1} << 20);
  r = validate_artifacts(view(b), {});
  EXPECT_FALSE(r.ok()) << describe(r);
  // The slice mutable tensor 2 reads (offset 12) is not in the file.
  expect_one(r, r.errors, finding::kSubsegmentOffsetOutOfRange, "mutable_data_segments[0].offsets[2]", 128,
             "0 bytes of it in the file");
}

// 13_everything: segment 3 (a QNN delegate's blob, 31 bytes at 640) is
// loaded, segment 4 (named data no backend asks for) is not. Segment 4's
// offset moved past the data leaves its bytes, at the next aligned offset
// after segment 3, as padding: they are not segment 3's cut tail (the
// runtime loads segment 3 as written). Segment 3's size cut short is.
TEST(ValidateRound2Segments, BytesOfASegmentThatLeftTheDataAreNotACutTail) {
  const std::vector<std::pair<std::string, Blob>> ptds = {
      {"model.ptd", load_file(conformance("13_everything") / "model.ptd")},
      {"shard_b.ptd", load_file(conformance("13_everything") / "shard_b.ptd")}};
  std::vector<uint8_t> b = pte_of("13_everything");
  const uint64_t base = segment_base(b);
  ASSERT_EQ(read_le<uint64_t>(&b[segment_field(b, 4, kOffset)]), 768u);
  write_le<uint64_t>(&b[segment_field(b, 4, kOffset)], uint64_t{1} << 40);
  ValidationReport r = validate_artifacts(view(b), ptds);
  EXPECT_TRUE(r.ok()) << describe(r);
  expect_one(r, r.warnings, finding::kPaddingNotZero, "", base + 768, "recorded range lies outside the segment data");
  EXPECT_TRUE(with_code(r.warnings, finding::kPaddingAfterSegmentNotZero).empty()) << describe(r);
  ASSERT_EQ(read_le<uint64_t>(&b[segment_field(b, 3, kSize)]), 31u);
  write_le<uint64_t>(&b[segment_field(b, 3, kSize)], 16);  // and segment 3 cut: the runtime hands out 16 bytes
  r = validate_artifacts(view(b), ptds);
  expect_one(r, r.errors, finding::kPaddingAfterSegmentNotZero, "segments[3]", base + 640 + 16, "cut short");
}

// An EXTERNAL constant points at its .ptd segment's first bytes
// (FlatTensorDataMap::get_data; parse_external_constants never compares
// sizes): a segment larger than the tensor is read in part (a warning),
// a smaller one lets the tensor run into the next bytes (an error).
TEST(ValidateRound2Segments, ExternalSegmentLargerThanItsTensor) {
  const Blob pte = load_file(conformance("13_everything") / "out.pte");
  const Blob shard = load_file(conformance("13_everything") / "shard_b.ptd");
  std::optional<uint64_t> warned_at;
  for (uint64_t size : {40u, 32u}) {  // lin.weight: Float [3, 3], 36 bytes, padded to 48
    std::vector<uint8_t> model = read_bytes(conformance("13_everything") / "model.ptd");
    Walk w{model};
    const size_t entry = w.element(w.root(), 2, 0);
    ASSERT_EQ(std::string(reinterpret_cast<const char*>(&model[w.string(entry, 0)]), 10), "lin.weight");
    const size_t index_at = w.field(entry, kSegmentIndex);
    const uint32_t segment = index_at ? w.u32(index_at) : 0;  // 0 is not stored
    const size_t size_at = w.field(w.element(w.root(), 1, segment), kSize);
    ASSERT_EQ(read_le<uint64_t>(&model[size_at]), 36u);
    write_le<uint64_t>(&model[size_at], size);
    ValidationReport r = validate_artifacts(pte, {{"model.ptd", view(model)}, {"shard_b.ptd", shard}});
    if (size == 40) {
      EXPECT_TRUE(r.ok()) << describe(r);
      auto found = with_code(r.warnings, finding::kExternalTensorSizeMismatch);
      ASSERT_EQ(found.size(), 1u) << describe(r);
      EXPECT_NE(found[0]->message.find("reads the first 36"), std::string::npos) << found[0]->message;
      EXPECT_EQ(found[0]->file, "pte");
      ASSERT_TRUE(found[0]->offset.has_value());
      warned_at = found[0]->offset;
    } else {
      auto found = with_code(r.errors, finding::kExternalTensorSizeMismatch);
      ASSERT_EQ(found.size(), 1u) << describe(r);
      EXPECT_EQ(found[0]->offset, warned_at) << describe(r);  // the same tensor's sizes
      EXPECT_EQ(found[0]->path, "execution_plan[0].values[29]");
    }
  }
}

// Only the placeholder offset in constant_segment: Program::load returns
// before it looks at segment_index (program.cpp: "the constant segment is
// empty and does not need to be loaded"), so an index past the segments is
// a warning. The upstream runtime loads this file and runs it.
TEST(ValidateRound2Segments, ConstantSegmentIndexWithOnlyThePlaceholderIsNeverFollowed) {
  const std::vector<uint8_t> original = pte_of("19_real_add_default");  // kept: the program views its bytes
  auto read = deserialize_pte_binary(view(original));
  ASSERT_TRUE(read.ok()) << read.error().message;
  read->program.at("constant_segment").table().at("segment_index") = Value::from_uint(7);
  auto cord = serialize_pte_binary(read->program, read->mutable_data ? &*read->mutable_data : nullptr,
                                   read->named_data ? &*read->named_data : nullptr, PteConfig{});
  ASSERT_TRUE(cord.ok()) << cord.error().message;
  const std::vector<uint8_t> b = std::move(cord->to_bytes().value());
  ValidationReport r = validate_artifacts(view(b), {});
  EXPECT_TRUE(r.ok()) << describe(r);
  expect_one(r, r.warnings, finding::kSegmentIndexOutOfRange, "constant_segment.segment_index", std::nullopt,
             "holds only the placeholder offset, so the runtime never loads it");
}

}  // namespace
}  // namespace etpack
