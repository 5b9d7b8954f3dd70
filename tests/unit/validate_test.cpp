// validate: every real artifact and conformance output is clean; each
// serialize case's .pte validates with its .ptd files, external tensors
// resolved; hand-made defects give their codes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/le_bytes.h"
#include "encode/ptd_writer.h"
#include "encode/pte_writer.h"
#include "read/pte_reader.h"
#include "validate/validate.h"
#include "unit/pte_cases.h"
#include "unit/test_files.h"
#include "unit/validate_findings.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;
using testing::describe;
using testing::with_code;
using testing::conformance;
using testing::artifact;
using testing::view;

using testing::load_file;

std::vector<fs::path> files_with(const fs::path& dir, const std::string& ext) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ext) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Validate, EveryArtifactIsClean) {
  auto files = files_with(ETPACK_ARTIFACTS_DIR, ".pte");
  ASSERT_EQ(files.size(), 3u);
  for (const auto& f : files) {
    Blob pte = load_file(f);
    ValidationReport r = validate_artifacts(pte, {});
    // module_linear_no_constant_segment.pte: see RuntimeRules tests.
    if (testing::has_constant_placeholder(pte)) {
      EXPECT_TRUE(r.ok()) << f << ": " << describe(r);
    }
    EXPECT_TRUE(r.warnings.empty()) << f << ": " << describe(r);
  }
}

// Errors every conformance file may have on its own: no placeholder (see
// runtime_rules_test.cpp), EXTERNAL tensors without their .ptd.
bool only_expected_errors(const ValidationReport& r) {
  for (const Finding& f : r.errors)
    if (f.code != finding::kConstantSegmentNoPlaceholder && f.code != finding::kExternalTensorUnresolved) return false;
  return true;
}

TEST(Validate, EveryConformancePteIsClean) {
  auto files = files_with(ETPACK_CONFORMANCE_DIR, ".pte");
  ASSERT_GT(files.size(), 30u);
  for (const auto& f : files) {
    ValidationReport r = validate_artifacts(load_file(f), {});
    if (testing::runtime_refuses_vector(f)) {
      ASSERT_EQ(r.errors.size(), 1u) << f << ": " << describe(r);
      EXPECT_EQ(r.errors[0].code, finding::kPlannedTensorPastBuffer);
      continue;
    }
    EXPECT_TRUE(only_expected_errors(r)) << f << ": " << describe(r);
    EXPECT_TRUE(r.warnings.empty()) << f << ": " << describe(r);
  }
}

TEST(Validate, EveryConformancePtdIsClean) {
  auto files = files_with(ETPACK_CONFORMANCE_DIR, ".ptd");
  ASSERT_GT(files.size(), 5u);
  for (const auto& f : files) {
    ValidationReport r = validate_ptd(f.filename().string(), load_file(f));
    EXPECT_TRUE(r.ok()) << f << ": " << describe(r);
    EXPECT_TRUE(r.warnings.empty()) << f << ": " << describe(r);
  }
}

// Every serialize case: out.pte with all its .ptd files resolves every
// EXTERNAL tensor; without them, the same tensors are reported unresolved.
TEST(Validate, EveryConformancePteResolvesWithItsPtds) {
  size_t cases = 0, with_externals = 0;
  for (const auto& dir : fs::directory_iterator(ETPACK_CONFORMANCE_DIR)) {
    fs::path case_json = dir.path() / "case.json";
    if (!fs::exists(case_json) || !fs::exists(dir.path() / "out.pte")) continue;
    Blob text = load_file(case_json);
    auto parsed = parse_json(std::string_view(reinterpret_cast<const char*>(text.data()), text.size()));
    ASSERT_TRUE(parsed.ok()) << case_json;
    const Json* expected = parsed->find("expected");
    ASSERT_NE(expected, nullptr);
    std::vector<std::pair<std::string, Blob>> ptds;
    if (const Json* ptd = expected->find("ptd"); ptd != nullptr && ptd->is_object())
      for (const auto& [tag, file] : ptd->members()) ptds.emplace_back(file.text(), load_file(dir.path() / file.text()));
    ++cases;
    Blob pte = load_file(dir.path() / "out.pte");
    ValidationReport alone = validate_artifacts(pte, {});
    ValidationReport together = validate_artifacts(pte, ptds);
    // Files without the placeholder: see runtime_rules_test.cpp.
    for (const Finding& f : together.errors)
      EXPECT_EQ(f.code, testing::runtime_refuses_vector(dir.path()) ? finding::kPlannedTensorPastBuffer
                                                                     : finding::kConstantSegmentNoPlaceholder)
          << dir.path();
    EXPECT_TRUE(together.warnings.empty()) << dir.path() << ": " << describe(together);
    if (std::any_of(alone.errors.begin(), alone.errors.end(),
                    [](const Finding& f) { return f.code == finding::kExternalTensorUnresolved; })) {
      ++with_externals;
      EXPECT_FALSE(ptds.empty()) << dir.path();
    }
  }
  EXPECT_GT(cases, 25u);
  EXPECT_GE(with_externals, 4u);  // 11, 12a, 12b, 13
}

// --- Hand-made defects ------------------------------------------------------

using testing::read_bytes;

const Finding* find(const std::vector<Finding>& list, const std::string& code) {
  for (const Finding& f : list)
    if (f.code == code) return &f;
  return nullptr;
}

// Asserts `code` is among the errors (or warnings) and returns it.
#define EXPECT_FINDING(list, code, report)                                              \
  [&]() -> const Finding* {                                                             \
    const Finding* f = find(list, code);                                                \
    EXPECT_NE(f, nullptr) << "no " << code << " in " << describe(report);               \
    return f;                                                                           \
  }()

// arduino_add.pte: eh00 at 8 (length 32), program_size 1040, segment base
// 1152, one 4-byte constant segment; the file is 1156 bytes.
class ArduinoHeader : public ::testing::Test {
 protected:
  std::vector<uint8_t> file = read_bytes(artifact("arduino_add.pte"));
  ValidationReport run() { return validate_artifacts(view(file), {}); }
};

TEST_F(ArduinoHeader, BaselineIsClean) {
  ASSERT_EQ(file.size(), 1156u);
  ASSERT_EQ(read_le<uint64_t>(&file[16]), 1040u);
  ASSERT_EQ(read_le<uint64_t>(&file[24]), 1152u);
  ValidationReport r = run();
  EXPECT_TRUE(r.ok() && r.warnings.empty()) << describe(r);
}

TEST_F(ArduinoHeader, ProgramSizePastTheFile) {
  write_le<uint64_t>(&file[16], 5000);
  ValidationReport r = run();
  const Finding* f = EXPECT_FINDING(r.errors, finding::kProgramSizeOutOfRange, r);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->offset, 16u);
  EXPECT_EQ(f->path, "header.program_size");
  EXPECT_NE(f->message.find("5000"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("1156"), std::string::npos) << f->message;
}

TEST_F(ArduinoHeader, SegmentBaseInsideTheProgram) {
  write_le<uint64_t>(&file[24], 1024);
  ValidationReport r = run();
  const Finding* f = EXPECT_FINDING(r.errors, finding::kSegmentBaseOutOfRange, r);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->offset, 24u);
}

TEST_F(ArduinoHeader, SegmentDataSizePastTheEnd) {
  write_le<uint64_t>(&file[32], 100);
  ValidationReport r = run();
  const Finding* f = EXPECT_FINDING(r.errors, finding::kSegmentDataPastEnd, r);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->offset, 32u);
}

TEST_F(ArduinoHeader, TruncatedSegment) {
  file.resize(1154);
  ValidationReport r = run();
  EXPECT_FINDING(r.errors, finding::kSegmentDataPastEnd, r);
  const Finding* f = EXPECT_FINDING(r.errors, finding::kSegmentOutOfBounds, r);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->path, "segments[0]");
  EXPECT_EQ(f->offset, 1152u);
}

TEST_F(ArduinoHeader, HeaderLengthBelowMinimum) {
  write_le<uint32_t>(&file[12], 16);
  ValidationReport r = run();
  const Finding* f = EXPECT_FINDING(r.errors, finding::kHeaderLengthInvalid, r);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->offset, 12u);
}

TEST_F(ArduinoHeader, OtherIdentifiers) {
  std::memcpy(&file[4], "ET11", 4);
  ValidationReport r = run();
  const Finding* f = EXPECT_FINDING(r.errors, finding::kUnsupportedVersion, r);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->offset, 4u);
  EXPECT_NE(f->message.find("ET11"), std::string::npos);
  std::memcpy(&file[4], "PK\x03\x04", 4);
  ValidationReport zip = run();
  EXPECT_FINDING(zip.errors, finding::kBadIdentifier, zip);
  ValidationReport tiny = validate_artifacts(Blob::view(file.data(), 5), {});
  EXPECT_FINDING(tiny.errors, finding::kFileTooSmall, tiny);
}

TEST_F(ArduinoHeader, TrailingBytesAndDirtyPaddingAreWarnings) {
  file[1100] = 0x5A;
  file.push_back(1);
  file.push_back(2);
  ValidationReport r = run();
  EXPECT_TRUE(r.ok()) << describe(r);
  const Finding* dirty = EXPECT_FINDING(r.warnings, finding::kPaddingNotZero, r);
  ASSERT_NE(dirty, nullptr);
  EXPECT_EQ(dirty->offset, 1100u);
  const Finding* trailing = EXPECT_FINDING(r.warnings, finding::kTrailingBytes, r);
  ASSERT_NE(trailing, nullptr);
  EXPECT_EQ(trailing->offset, 1156u);
}

TEST_F(ArduinoHeader, MisalignedSegmentIsAWarning) {
  // Drop 8 bytes of padding: the segment now starts at 1144, 8-aligned.
  file.erase(file.begin() + 1144, file.begin() + 1152);
  write_le<uint64_t>(&file[24], 1144);
  ValidationReport r = run();
  EXPECT_TRUE(r.ok()) << describe(r);
  const Finding* f = EXPECT_FINDING(r.warnings, finding::kSegmentMisaligned, r);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->offset, 1144u);
}

TEST_F(ArduinoHeader, OversizedPaddingIsAWarning) {
  // 64 KiB of zeros between the program and the segment data.
  const uint64_t base = read_le<uint64_t>(&file[24]);
  file.insert(file.begin() + static_cast<std::ptrdiff_t>(base), 64 * 1024, 0);
  write_le<uint64_t>(&file[24], base + 64 * 1024);
  ValidationReport r = run();
  EXPECT_TRUE(r.ok()) << describe(r);
  const Finding* f = EXPECT_FINDING(r.warnings, finding::kPaddingLarge, r);
  ASSERT_NE(f, nullptr);
  EXPECT_LT(*f->offset, base);
  EXPECT_EQ(r.warnings.size(), 1u) << describe(r);
}

// Program-level defects: read a conformance output back, change the
// program, write it again with our serializer.
struct Rewritten {
  PteFile pte;
  std::vector<uint8_t> bytes;
};

Rewritten reread(const fs::path& path) {
  Blob file = load_file(path);
  auto r = deserialize_pte_binary(file);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return Rewritten{std::move(r.value()), {}};
}

std::vector<uint8_t> rewrite(const PteFile& pte, bool extract_delegates = false, bool keep_mutable = true) {
  PteConfig config;
  config.extract_delegate_segments = extract_delegates;
  const std::vector<Blob>* mutable_data = keep_mutable && pte.mutable_data ? &*pte.mutable_data : nullptr;
  const NamedDataStoreOutput* named = pte.named_data ? &*pte.named_data : nullptr;
  auto cord = serialize_pte_binary(pte.program, mutable_data, named, config);
  EXPECT_TRUE(cord.ok()) << (cord.ok() ? "" : cord.error().message);
  auto bytes = cord->to_bytes();
  EXPECT_TRUE(bytes.ok());
  return std::move(bytes.value());
}

// The first Tensor value of plan 0 for which `pick` holds; returns its index.
size_t find_tensor(const TableValue& program, const std::function<bool(const TableValue&)>& pick) {
  const Value& values = program.get("execution_plan").items()[0].table().get("values");
  for (size_t i = 0; i < values.items().size(); ++i) {
    const Value& val = values.items()[i].table().get("val");
    if (val.is_table() && val.table().def->name == "Tensor" && pick(val.table())) return i;
  }
  ADD_FAILURE() << "no such tensor";
  return 0;
}

TableValue& tensor_at(TableValue& program, size_t index) {
  return program.at("execution_plan").items()[0].table().at("values").items()[index].table().at("val").table();
}

Blob int32s(std::vector<int32_t> values) {
  std::vector<uint8_t> raw(values.size() * 4);
  for (size_t i = 0; i < values.size(); ++i) write_le<uint32_t>(&raw[i * 4], static_cast<uint32_t>(values[i]));
  return Blob::own(std::move(raw));
}

Blob uint8s(std::vector<uint8_t> values) { return Blob::own(std::move(values)); }

bool is_constant(const TableValue& t) {
  return t.get_uint("data_buffer_idx") == 1 && !t.has("allocation_info");
}

TEST(ValidateProgram, RewrittenEverythingIsStillClean) {
  Rewritten r = reread(conformance("13_everything") / "out.pte");
  std::vector<uint8_t> bytes = rewrite(r.pte, true);
  EXPECT_EQ(bytes, read_bytes(conformance("13_everything") / "out.pte"));
}

TEST(ValidateProgram, InstructionIndicesOutOfRange) {
  Rewritten r = reread(artifact("arduino_add.pte"));  // one chain, one KernelCall aten::add.out
  TableValue& plan = r.pte.program.at("execution_plan").items()[0].table();
  TableValue& chain = plan.at("chains").items()[0].table();
  TableValue& call = chain.at("instructions").items()[0].table().at("instr_args").table();
  ASSERT_EQ(call.def->name, "KernelCall");
  call.at("op_index") = Value::from_int(3);
  call.at("args") = Value::from_scalars(int32s({0, 1, 99, 3}));
  chain.at("inputs") = Value::from_scalars(int32s({-1}));
  std::vector<uint8_t> bytes = rewrite(r.pte);
  ValidationReport report = validate_artifacts(view(bytes), {});
  const Finding* op = EXPECT_FINDING(report.errors, finding::kOperatorIndexOutOfRange, report);
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->path, "execution_plan[0].chains[0].instructions[0].instr_args.op_index");
  bool arg = false, input = false;
  for (const Finding& f : report.errors) {
    arg = arg || (f.code == finding::kValueIndexOutOfRange && f.path == "execution_plan[0].chains[0].instructions[0].instr_args.args[2]");
    input = input || (f.code == finding::kValueIndexOutOfRange && f.path == "execution_plan[0].chains[0].inputs[0]");
  }
  EXPECT_TRUE(arg) << describe(report);
  EXPECT_TRUE(input) << describe(report);
}

TEST(ValidateProgram, ConstantTensorLargerThanItsSlice) {
  Rewritten r = reread(conformance("02_constants_default") / "out.pte");
  size_t v = find_tensor(r.pte.program, is_constant);  // float[3] in a 16-byte slice
  tensor_at(r.pte.program, v).at("sizes") = Value::from_scalars(int32s({5}));
  std::vector<uint8_t> bytes = rewrite(r.pte);
  ValidationReport report = validate_artifacts(view(bytes), {});
  const Finding* f = EXPECT_FINDING(report.errors, finding::kTensorDataOverlapsNext, report);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->path, "execution_plan[0].values[" + std::to_string(v) + "]");
  EXPECT_TRUE(f->offset.has_value());

  tensor_at(r.pte.program, v).at("sizes") = Value::from_scalars(int32s({1000}));
  bytes = rewrite(r.pte);
  report = validate_artifacts(view(bytes), {});
  EXPECT_FINDING(report.errors, finding::kTensorDataOutOfBounds, report);
}

TEST(ValidateProgram, ConstantIndexPastTheOffsets) {
  Rewritten r = reread(conformance("02_constants_default") / "out.pte");
  size_t v = find_tensor(r.pte.program, is_constant);
  tensor_at(r.pte.program, v).set_uint("data_buffer_idx", 40);
  std::vector<uint8_t> bytes = rewrite(r.pte);
  ValidationReport report = validate_artifacts(view(bytes), {});
  EXPECT_FINDING(report.errors, finding::kTensorDataIndexOutOfRange, report);
}

TEST(ValidateProgram, BadShapes) {
  Rewritten r = reread(conformance("02_constants_default") / "out.pte");
  size_t v = find_tensor(r.pte.program, [](const TableValue&) { return true; });
  TableValue& t = tensor_at(r.pte.program, v);
  t.at("sizes") = Value::from_scalars(int32s({2, -3}));
  t.at("dim_order") = Value::from_scalars(uint8s({1, 1}));
  t.set_int("scalar_type", 99);
  t.set_int("storage_offset", 4);
  std::vector<uint8_t> bytes = rewrite(r.pte);
  ValidationReport report = validate_artifacts(view(bytes), {});
  for (const char* code : {finding::kTensorSizesInvalid, finding::kTensorDimOrderInvalid,
                           finding::kTensorScalarTypeInvalid, finding::kTensorStorageOffset})
    EXPECT_FINDING(report.errors, code, report);

  t.at("sizes") = Value::from_scalars(int32s(std::vector<int32_t>(17, 1)));
  bytes = rewrite(r.pte);
  report = validate_artifacts(view(bytes), {});
  const Finding* rank = EXPECT_FINDING(report.errors, finding::kTensorSizesInvalid, report);
  ASSERT_NE(rank, nullptr);
  EXPECT_NE(rank->message.find("rank 17"), std::string::npos) << rank->message;
}

TEST(ValidateProgram, MutableTensorsWithoutMutableData) {
  Rewritten r = reread(conformance("04_mutable_data") / "out.pte");
  ASSERT_TRUE(r.pte.mutable_data.has_value());
  std::vector<uint8_t> bytes = rewrite(r.pte, false, /*keep_mutable=*/false);
  ValidationReport report = validate_artifacts(view(bytes), {});
  EXPECT_FINDING(report.errors, finding::kMutableDataMissing, report);
}

TEST(ValidateProgram, DelegateIndexPastItsData) {
  Rewritten r = reread(conformance("05_delegate_inline") / "out.pte");
  TableValue& plan = r.pte.program.at("execution_plan").items()[0].table();
  plan.at("delegates").items()[0].table().at("processed").table().set_uint("index", 7);
  std::vector<uint8_t> bytes = rewrite(r.pte);
  ValidationReport report = validate_artifacts(view(bytes), {});
  const Finding* f = EXPECT_FINDING(report.errors, finding::kDelegateIndexOutOfRange, report);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->path, "execution_plan[0].delegates[0].processed.index");
  EXPECT_FINDING(report.warnings, finding::kDelegateDataUnreferenced, report);
}

TEST(ValidateProgram, DuplicateNamedDataKey) {
  std::vector<uint8_t> file = read_bytes(conformance("13_everything") / "out.pte");
  std::string text(file.begin(), file.end());
  size_t at = text.find("xnnpack.weight.b");
  ASSERT_NE(at, std::string::npos);
  std::memcpy(&file[at], "xnnpack.weight.a", 16);
  ValidationReport report = validate_artifacts(view(file), {});
  const Finding* f = EXPECT_FINDING(report.errors, finding::kDuplicateKey, report);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("xnnpack.weight.a"), std::string::npos);
  EXPECT_NE(f->message.find("with other data (segment 5, not 4)"), std::string::npos) << f->message;
}

// A .pte key repeated on the first entry's own segment: the runtime's lookup
// (PteDataMap, first match) finds the same bytes, so a warning. 13_everything's
// 'xnnpack.weight.a_alias' shares segment 4 with 'xnnpack.weight.a'; its string
// is cut to 'xnnpack.weight.a' (length prefix 16, terminator after it).
TEST(ValidateProgram, DuplicateNamedDataKeyOnTheSameSegmentIsAWarning) {
  std::vector<uint8_t> file = read_bytes(conformance("13_everything") / "out.pte");
  std::string text(file.begin(), file.end());
  size_t at = text.find("xnnpack.weight.a_alias");
  ASSERT_NE(at, std::string::npos);
  ASSERT_GE(at, 4u);
  file[at - 4] = 16;
  file[at - 3] = file[at - 2] = file[at - 1] = 0;
  file[at + 16] = 0;
  const std::vector<uint8_t> model = read_bytes(conformance("13_everything") / "model.ptd");
  const std::vector<uint8_t> shard = read_bytes(conformance("13_everything") / "shard_b.ptd");
  ValidationReport report = validate_artifacts(view(file), {{"model.ptd", view(model)}, {"shard_b.ptd", view(shard)}});
  EXPECT_TRUE(report.ok()) << describe(report);
  const Finding* f = EXPECT_FINDING(report.warnings, finding::kDuplicateKeySameData, report);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->path, "named_data[3].key");
  EXPECT_NE(f->message.find("of named_data[0] on the same segment 4"), std::string::npos) << f->message;
}

// --- External tensors ---------------------------------------------------------

class External : public ::testing::Test {
 protected:
  fs::path dir = conformance("13_everything");
  std::vector<uint8_t> model = read_bytes(dir / "model.ptd");
  std::vector<uint8_t> shard = read_bytes(dir / "shard_b.ptd");
  ValidationReport run(const std::vector<uint8_t>& pte) {
    return validate_artifacts(view(pte), {{"model.ptd", view(model)}, {"shard_b.ptd", view(shard)}});
  }
  size_t weight(const TableValue& program) {
    return find_tensor(program, [](const TableValue& t) {
      const Value& extra = t.get("extra_tensor_info");
      return extra.is_table() && extra.table().get("fully_qualified_name").is_string() &&
             extra.table().get("fully_qualified_name").str() == "lin.weight";
    });
  }
};

TEST_F(External, UnresolvedWithoutPtdIsAnError) {
  std::vector<uint8_t> pte = read_bytes(dir / "out.pte");
  ValidationReport r = validate_artifacts(view(pte), {});
  EXPECT_FALSE(r.ok()) << describe(r);  // load_method: InvalidState
  const Finding* f = EXPECT_FINDING(r.errors, finding::kExternalTensorUnresolved, r);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("lin.weight"), std::string::npos);
}

TEST_F(External, MissingFromTheGivenPtds) {
  std::vector<uint8_t> pte = read_bytes(dir / "out.pte");
  ValidationReport r = validate_artifacts(view(pte), {{"shard_b.ptd", view(shard)}});
  const Finding* f = EXPECT_FINDING(r.errors, finding::kExternalTensorNotFound, r);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->file, "pte");
  EXPECT_NE(f->path.find("execution_plan[0].values["), std::string::npos);
}

TEST_F(External, TypeShapeAndSizeMismatches) {
  Rewritten r = reread(dir / "out.pte");
  size_t v = weight(r.pte.program);  // Float [3, 3], 36 bytes in model.ptd
  TableValue& t = tensor_at(r.pte.program, v);

  t.at("sizes") = Value::from_scalars(int32s({9}));
  t.at("dim_order") = Value::from_scalars(uint8s({0}));
  ValidationReport shape = run(rewrite(r.pte, true));
  EXPECT_FINDING(shape.errors, finding::kExternalTensorShapeMismatch, shape);
  EXPECT_EQ(find(shape.errors, finding::kExternalTensorSizeMismatch), nullptr) << describe(shape);

  t.at("sizes") = Value::from_scalars(int32s({3, 3}));
  t.at("dim_order") = Value::from_scalars(uint8s({0, 1}));
  t.set_int("scalar_type", 4);  // Long: 72 bytes
  ValidationReport type = run(rewrite(r.pte, true));
  EXPECT_FINDING(type.errors, finding::kExternalTensorTypeMismatch, type);
  const Finding* size = EXPECT_FINDING(type.errors, finding::kExternalTensorSizeMismatch, type);
  ASSERT_NE(size, nullptr);
  EXPECT_NE(size->message.find("72"), std::string::npos);
  EXPECT_NE(size->message.find("36"), std::string::npos);
}

// Module merges the .ptd files it is given and refuses a key in two of them
// (extension/named_data_map's MergedDataMap: "Duplicate key"): one error
// per pair of files, on the later file, counting the keys.
TEST_F(External, KeyInTwoPtdsIsRefused) {
  std::vector<uint8_t> pte = read_bytes(dir / "out.pte");
  ValidationReport r = validate_artifacts(view(pte), {{"model.ptd", view(model)}, {"copy.ptd", view(model)}});
  EXPECT_FALSE(r.ok()) << describe(r);
  auto found = with_code(r.errors, finding::kDuplicateKeyAcrossFiles);
  ASSERT_EQ(found.size(), 1u) << describe(r);
  EXPECT_EQ(found[0]->file, "copy.ptd");
  EXPECT_EQ(found[0]->path, "named_data[2].key");  // ext.w, the first key in key order
  EXPECT_NE(found[0]->message.find("model.ptd and copy.ptd both hold 3 keys ('ext.w', 'lin.bias', 'lin.weight')"),
            std::string::npos) << found[0]->message;
  EXPECT_EQ(r.errors.size(), 1u) << describe(r);
  EXPECT_TRUE(r.warnings.empty()) << describe(r);
  // One file alone, or two without a shared key, is no such finding.
  EXPECT_TRUE(with_code(validate_artifacts(view(pte), {{"model.ptd", view(model)}}).errors,
                        finding::kDuplicateKeyAcrossFiles).empty());
}

// --- .ptd ---------------------------------------------------------------------

std::vector<uint8_t> write_ptd(const DataPayload& payload) {
  FlatTensorSerializer serializer;
  auto cord = serializer.serialize(payload);
  EXPECT_TRUE(cord.ok()) << (cord.ok() ? "" : cord.error().message);
  return std::move(cord->to_bytes().value());
}

TEST(ValidatePtd, LayoutsAgainstTheirData) {
  std::vector<uint8_t> weights(36, 7);
  DataPayload payload;
  payload.buffers.push_back(Blob::view(weights.data(), weights.size()));
  DataEntry big{0, 16, TensorLayout{6, {4, 4}, {0, 1}}};    // 64 bytes
  DataEntry small{0, 16, TensorLayout{6, {2}, {0}}};         // 8 bytes
  DataEntry bad{0, 16, TensorLayout{6, {3, 3}, {0, 0}}};     // not a permutation
  payload.named_data = {{"big", big}, {"small", small}, {"bad", bad}, {"big", big}};
  std::vector<uint8_t> ptd = write_ptd(payload);
  ValidationReport r = validate_ptd("w.ptd", view(ptd));
  const Finding* larger = EXPECT_FINDING(r.errors, finding::kLayoutLargerThanData, r);
  ASSERT_NE(larger, nullptr);
  EXPECT_EQ(larger->file, "w.ptd");
  EXPECT_EQ(larger->path, "named_data[0]");
  EXPECT_FINDING(r.warnings, finding::kLayoutSmallerThanData, r);
  EXPECT_FINDING(r.errors, finding::kLayoutInvalid, r);
  const Finding* dup = EXPECT_FINDING(r.errors, finding::kDuplicateKey, r);
  ASSERT_NE(dup, nullptr);
  EXPECT_EQ(dup->path, "named_data[3].key");
}

// A key many entries repeat is one finding (issue 29: a million entries of
// one key were a million findings): at the first repeat, naming the first
// holder, the count and the first few repeats.
TEST(ValidatePtd, RepeatedKeyIsOneFindingPerKey) {
  std::vector<uint8_t> weights(16, 7);
  DataPayload payload;
  payload.buffers.push_back(Blob::view(weights.data(), weights.size()));
  DataEntry entry{0, 16, TensorLayout{6, {4}, {0}}};
  payload.named_data = {{"w", entry}, {"v", entry}, {"w", entry}, {"w", entry}, {"v", entry},
                        {"w", entry}, {"w", entry}, {"w", entry}};
  std::vector<uint8_t> ptd = write_ptd(payload);
  ValidationReport r = validate_ptd("w.ptd", view(ptd));
  std::vector<const Finding*> repeats;
  for (const Finding& f : r.errors)
    if (f.code == finding::kDuplicateKey) repeats.push_back(&f);
  ASSERT_EQ(repeats.size(), 2u) << r.errors.size();
  EXPECT_EQ(repeats[0]->path, "named_data[2].key");
  EXPECT_EQ(repeats[0]->message,
            "named_data[2] repeats the key 'w' of named_data[0]; 5 entries repeat it: named_data[2], named_data[3], "
            "named_data[5] and 2 more");
  EXPECT_EQ(repeats[1]->path, "named_data[4].key");
  EXPECT_EQ(repeats[1]->message, "named_data[4] repeats the key 'v' of named_data[1]");
  EXPECT_EQ(repeats[0]->offset, std::nullopt);
}

TEST(ValidatePtd, HeaderDefects) {
  std::vector<uint8_t> ptd = read_bytes(conformance("13_everything") / "model.ptd");
  ASSERT_TRUE(validate_ptd("m.ptd", view(ptd)).ok());
  auto with = [&](size_t at, uint64_t value) {
    std::vector<uint8_t> copy = ptd;
    write_le<uint64_t>(&copy[at], value);
    return validate_ptd("m.ptd", view(copy));
  };
  ValidationReport fb = with(24, 1u << 20);  // flatbuffer_size
  EXPECT_FINDING(fb.errors, finding::kFlatbufferRangeInvalid, fb);
  ValidationReport base = with(32, 8);  // segment_base_offset inside the flatbuffer
  EXPECT_FINDING(base.errors, finding::kSegmentBaseOutOfRange, base);
  ValidationReport data = with(40, 1u << 20);  // segment_data_size
  EXPECT_FINDING(data.errors, finding::kSegmentDataPastEnd, data);

  std::vector<uint8_t> other = ptd;
  ASSERT_GE(other.size(), 12u);
  std::copy_n("FT02", 4, other.begin() + 4);
  ValidationReport version = validate_ptd("m.ptd", view(other));
  EXPECT_FINDING(version.errors, finding::kUnsupportedVersion, version);
  std::copy_n("FT01", 4, other.begin() + 4);
  std::copy_n("XH01", 4, other.begin() + 8);
  ValidationReport missing = validate_ptd("m.ptd", view(other));
  EXPECT_FINDING(missing.errors, finding::kHeaderMissing, missing);
}

TEST(ValidateReport, JsonShape) {
  std::vector<uint8_t> junk = {1, 2, 3};
  ValidationReport r = validate_artifacts(view(junk), {});
  EXPECT_EQ(write_json(r.to_json()),
            "{\"ok\": false, \"errors\": [{\"code\": \"FILE_TOO_SMALL\", \"message\": \"file is 3 bytes; a .pte needs "
            "at least 8\", \"file\": \"pte\", \"offset\": 0, \"path\": null}], \"warnings\": []}");
}

}  // namespace
}  // namespace etpack
