// validate as the runtime's judge (../shared/RUNTIME.md): every artifact and
// conformance output with its .ptd files loads, except files without the
// constant segment placeholder, whose only error is that; the damaged
// files the runtime misloads are errors; targets (--runtime, --backends).
#include <gtest/gtest.h>

#include "format/headers.h"

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/le_bytes.h"
#include "encode/pte_writer.h"
#include "read/program_tensors.h"
#include "read/pte_reader.h"
#include "read/requirements.h"
#include "validate/validate.h"
#include "unit/pte_cases.h"
#include "unit/test_files.h"
#include "unit/validate_findings.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;
using testing::describe;
using testing::conformance;
using testing::artifact;
using testing::view;
using testing::load_file;
using testing::read_bytes;

size_t count(const std::vector<Finding>& list, const std::string& code) {
  size_t n = 0;
  for (const Finding& f : list) n += f.code == code;
  return n;
}

std::vector<std::pair<std::string, Blob>> ptds_of(const char* dir) {
  std::vector<std::pair<std::string, Blob>> out;
  for (const auto& e : fs::directory_iterator(conformance(dir)))
    if (e.path().extension() == ".ptd") out.emplace_back(e.path().filename().string(), load_file(e.path()));
  return out;
}

TEST(RuntimeRules, EveryFileLoadsOrLacksOnlyThePlaceholder) {
  size_t clean = 0, without_placeholder = 0;
  for (const testing::PteCase& c : testing::every_pte_case()) {
    Blob pte = load_file(c.pte);
    ValidationReport r = validate_artifacts(pte, c.ptds);
    EXPECT_TRUE(r.warnings.empty()) << c.pte << ": " << describe(r);
    if (testing::runtime_refuses_vector(c.pte)) {
      ASSERT_EQ(r.errors.size(), 1u) << c.pte << ": " << describe(r);
      EXPECT_EQ(r.errors[0].code, finding::kPlannedTensorPastBuffer) << c.pte;
    } else if (testing::has_constant_placeholder(pte)) {
      ++clean;
      EXPECT_TRUE(r.ok()) << c.pte << ": " << describe(r);
    } else {
      ++without_placeholder;
      ASSERT_EQ(r.errors.size(), 1u) << c.pte << ": " << describe(r);
      EXPECT_EQ(r.errors[0].code, finding::kConstantSegmentNoPlaceholder) << c.pte;
      // Builds with the deprecated constant_buffer path load it.
      ValidateOptions buck;
      buck.deprecated_constant_buffer = true;
      ValidationReport old = validate_artifacts(pte, c.ptds, buck);
      EXPECT_TRUE(old.ok()) << c.pte << ": " << describe(old);
      EXPECT_EQ(count(old.warnings, finding::kConstantSegmentNoPlaceholder), 1u) << c.pte;
    }
  }
  EXPECT_GT(clean, 15u);
  EXPECT_GT(without_placeholder, 10u);
}

TEST(RuntimeRules, PlaceholderMissingWithConstantsOrExternalTensors) {
  // An old export keeping its constants in constant_buffer.
  ValidationReport linear = validate_artifacts(load_file(artifact("module_linear_no_constant_segment.pte")), {});
  ASSERT_EQ(linear.errors.size(), 1u) << describe(linear);
  const Finding& f = linear.errors[0];
  EXPECT_EQ(f.code, "CONSTANT_SEGMENT_NO_PLACEHOLDER");
  for (const char* says : {"InvalidProgram", "CMake", "Buck", "deprecated constant_buffer", "executorch-pack repack"})
    EXPECT_NE(f.message.find(says), std::string::npos) << says << " not in: " << f.message;
  // EXTERNAL tensors and no constant in the file: the runtime still refuses it.
  ValidationReport external =
      validate_artifacts(load_file(conformance("11_external_constants_only") / "out.pte"), ptds_of("11_external_constants_only"));
  ASSERT_EQ(external.errors.size(), 1u) << describe(external);
  EXPECT_EQ(external.errors[0].code, finding::kConstantSegmentNoPlaceholder);
  // A target before 1.3 still had the deprecated path in its CMake build.
  ValidateOptions v12;
  v12.runtime = std::make_pair(1, 2);
  ValidationReport old = validate_artifacts(load_file(artifact("module_linear_no_constant_segment.pte")), {}, v12);
  EXPECT_TRUE(old.ok()) << describe(old);
}

// Finds the one place `value` is stored (8 bytes LE) in [0, end).
size_t unique_u64(const std::vector<uint8_t>& file, uint64_t value, size_t end) {
  uint8_t le[8];
  write_le<uint64_t>(le, value);
  size_t hits = 0, at = 0;
  for (size_t i = 0; i + 8 <= end; ++i)
    if (std::memcmp(&file[i], le, 8) == 0) ++hits, at = i;
  EXPECT_EQ(hits, 1u) << "value " << value;
  return at;
}

TEST(RuntimeRules, DelegateSegmentMadeSmallerIsAnError) {
  std::vector<uint8_t> file = read_bytes(conformance("06_delegates_extracted_dedup") / "out.pte");
  auto read = read_pte_program(view(file));
  ASSERT_TRUE(read.ok());
  const TableValue& segment = read->program.get("segments").items()[0].table();
  const uint64_t size = segment.get_uint("size");
  ASSERT_GT(size, 16u);
  const size_t at = unique_u64(file, size, static_cast<size_t>(read->header->program_size));
  write_le<uint64_t>(&file[at], size - 16);  // the backend would get 16 bytes less, silently
  ValidationReport r = validate_artifacts(view(file), {});
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(count(r.errors, finding::kPaddingAfterSegmentNotZero), 1u) << describe(r);
  EXPECT_EQ(count(r.warnings, finding::kPaddingNotZero), 0u) << describe(r);
}

TEST(RuntimeRules, ConstantOffsetMovedInsideTheSegmentIsAnError) {
  // Offsets [0, 0, 16, 64, ...]: constant 2 (33 bytes) is padded to 64,
  // constant 3 (10 bytes) starts there.
  std::vector<uint8_t> file = read_bytes(conformance("02_constants_default") / "out.pte");
  auto read = read_pte_program(view(file));
  ASSERT_TRUE(read.ok());
  const Value& offsets = read->program.get("constant_segment").table().get("offsets");
  ASSERT_EQ(scalar_vector_uint(offsets, BaseType::kULong, 3), 64u);
  auto at = offset_in_file(offsets.scalars(), view(file));
  ASSERT_TRUE(at);
  write_le<uint64_t>(&file[*at + 3 * 8], 68);
  ValidationReport r = validate_artifacts(view(file), {});
  EXPECT_EQ(count(r.errors, finding::kSlicePaddingNotZero), 1u) << describe(r);
}

TEST(RuntimeRules, SegmentBaseMovedBackIsAnError) {
  // arduino_add.pte: program_size 1040, base 1152 (= 1040 rounded up to 128).
  std::vector<uint8_t> file = read_bytes(artifact("arduino_add.pte"));
  write_le<uint64_t>(&file[24], 1136);
  ValidationReport r = validate_artifacts(view(file), {});
  EXPECT_EQ(count(r.errors, finding::kSegmentBaseMoved), 1u) << describe(r);
}

TEST(RuntimeRules, DataRightBeforeASegmentIsAnError) {
  // What a segment whose recorded offset moved forward leaves behind: its
  // first bytes in the padding just before its new start.
  std::vector<uint8_t> file = read_bytes(artifact("arduino_add.pte"));
  file[1151] = 7;  // the constant segment starts at 1152
  ValidationReport r = validate_artifacts(view(file), {});
  ASSERT_EQ(count(r.errors, finding::kPaddingBeforeSegmentNotZero), 1u) << describe(r);
  EXPECT_EQ(r.errors[0].offset, 1151u);
  file[1151] = 0;
  file[1100] = 7;  // stray bytes mid-padding stay a warning
  EXPECT_TRUE(validate_artifacts(view(file), {}).ok());
}

TEST(RuntimeRules, TensorListOfANonTensorIsAnError) {
  auto read = deserialize_pte_binary(load_file(conformance("13_everything") / "out.pte"));
  ASSERT_TRUE(read.ok());
  TableValue& list = read->program.at("execution_plan").items()[0].table().at("values").items()[11].table().at("val").table();
  ASSERT_EQ(list.def->name, "TensorList");
  std::vector<uint8_t> items(8);
  write_le<int32_t>(&items[0], 0);
  write_le<int32_t>(&items[4], 2);  // value 2 is an Int
  list.at("items") = Value::from_scalars(Blob::own(std::move(items)));
  PteConfig config;
  config.extract_delegate_segments = true;
  auto cord = serialize_pte_binary(read->program, &*read->mutable_data, &*read->named_data, config);
  ASSERT_TRUE(cord.ok()) << cord.error().message;
  ValidationReport r = validate_artifacts(Blob::own(std::move(cord->to_bytes().value())), ptds_of("13_everything"));
  ASSERT_EQ(count(r.errors, finding::kTensorListItemInvalid), 1u) << describe(r);
  EXPECT_NE(r.errors[0].message.find("InvalidType"), std::string::npos);  // tryToTensor of an Int
}

TEST(RuntimeRules, PtdInTheLayoutOf06IsNamed) {
  // A FlatTensor root whose vtable has the five fields of ExecuTorch 0.6:
  // version, tensor_alignment, tensors, segments, named_data. The FH01
  // header (bytes 8..56) bounds the flatbuffer: 48 + 64 bytes.
  std::vector<uint8_t> fb(112, 0);
  write_le<uint32_t>(&fb[0], 80);  // root table at 80
  PtdHeader header;
  header.flatbuffer_size = 64;
  header.segment_base_offset = 112;
  const std::vector<uint8_t> encoded = encode_ptd_header(header);
  std::copy(encoded.begin(), encoded.end(), fb.begin() + 8);
  write_le<uint16_t>(&fb[56], 14);  // vtable at 56: 4 + 5 slots
  write_le<uint16_t>(&fb[58], 20);
  for (uint16_t i = 1; i < 5; ++i) write_le<uint16_t>(&fb[60 + 2 * i], static_cast<uint16_t>(4 * i));
  write_le<int32_t>(&fb[80], 80 - 56);
  auto old = ptd_old_layout_fields(view(fb));
  ASSERT_TRUE(old);
  EXPECT_EQ(*old, "tensor_alignment, tensors, segments, named_data");
  // The same vtable past the flatbuffer's declared end is not looked at.
  std::vector<uint8_t> short_header = fb;
  header.flatbuffer_size = 16;
  const std::vector<uint8_t> shorter = encode_ptd_header(header);
  std::copy(shorter.begin(), shorter.end(), short_header.begin() + 8);
  EXPECT_FALSE(ptd_old_layout_fields(view(short_header)));
  for (const char* ptd : {"model.ptd", "shard_b.ptd"})
    EXPECT_FALSE(ptd_old_layout_fields(load_file(conformance("13_everything") / ptd))) << ptd;
}

TEST(RuntimeRules, BrokenEh00MagicIsAnError) {
  std::vector<uint8_t> file = read_bytes(artifact("arduino_add.pte"));
  file[8] = 'x';  // the runtime reads this as "no extended header"
  ValidationReport r = validate_artifacts(view(file), {});
  ASSERT_EQ(count(r.errors, finding::kSegmentsWithoutHeader), 1u) << describe(r);
}

TEST(RuntimeRules, ExternalTensorsWithoutPtdAreErrors) {
  ValidationReport r = validate_artifacts(load_file(conformance("13_everything") / "out.pte"), {});
  EXPECT_EQ(count(r.errors, finding::kExternalTensorUnresolved), 2u) << describe(r);  // lin.weight, lin.bias
  for (const Finding& f : r.errors) EXPECT_NE(f.message.find("InvalidState"), std::string::npos) << f.message;
}

TEST(RuntimeRules, PtdDefectsSayTheRuntimeRefusesThem) {
  std::vector<uint8_t> ptd = read_bytes(conformance("13_everything") / "model.ptd");
  ptd[9] = 'x';  // FH01 magic
  ValidationReport r = validate_ptd("model.ptd", view(ptd));
  ASSERT_FALSE(r.errors.empty());
  EXPECT_NE(r.errors[0].message.find("InvalidExternalData"), std::string::npos) << describe(r);
}

TEST(RuntimeTarget, FeaturesNewerThanTheReleaseAreErrors) {
  Blob pte = load_file(conformance("13_everything") / "out.pte");
  auto ptds = ptds_of("13_everything");
  ASSERT_EQ(ptds.size(), 2u);
  ValidateOptions current;
  current.runtime = std::make_pair(1, 4);
  EXPECT_TRUE(validate_artifacts(pte, ptds, current).ok());
  ValidateOptions v05;
  v05.runtime = std::make_pair(0, 5);
  ValidationReport r = validate_artifacts(pte, ptds, v05);
  // named_data (0.6), a .ptd (0.7), several .ptd files (1.0).
  EXPECT_EQ(count(r.errors, finding::kFeatureTooNew), 3u) << describe(r);
  ValidateOptions v09;
  v09.runtime = std::make_pair(0, 9);
  EXPECT_EQ(count(validate_artifacts(pte, ptds, v09).errors, finding::kFeatureTooNew), 1u);  // several .ptd files
  EXPECT_EQ(count(validate_artifacts(pte, {ptds[0]}, v09).errors, finding::kFeatureTooNew), 0u);
}

TEST(RuntimeTarget, BackendsNotLinkedAreErrors) {
  Blob pte = load_file(conformance("13_everything") / "out.pte");
  auto ptds = ptds_of("13_everything");
  ValidateOptions xnnpack;
  xnnpack.backends = std::vector<std::string>{"XnnpackBackend"};
  ValidationReport r = validate_artifacts(pte, ptds, xnnpack);
  ASSERT_EQ(count(r.errors, finding::kBackendNotListed), 1u) << describe(r);
  EXPECT_NE(r.errors[0].message.find("QnnBackend"), std::string::npos);
  xnnpack.backends->push_back("QnnBackend");
  EXPECT_TRUE(validate_artifacts(pte, ptds, xnnpack).ok());
}

TEST(RuntimeTarget, ReleasesParse) {
  EXPECT_EQ(parse_release("1.0")->text(), "1.0");
  EXPECT_EQ(parse_release("v0.7.1")->text(), "0.7");
  for (const char* bad : {"", "1", "1.", ".1", "1.x", "1.0.0.0", "one", "1.0 "}) EXPECT_FALSE(parse_release(bad)) << bad;
  EXPECT_TRUE(*parse_release("0.7") < *parse_release("1.0"));
}

}  // namespace
}  // namespace etpack
