// Repack writes what the runtime loads (issue 10): the constant-segment
// placeholder, one key per layout, inputs checked first, missing data
// refused, and every output validated.
#include <gtest/gtest.h>

#include <algorithm>

#include "repack_test_util.h"
#include "validate/validate.h"

namespace etpack {
namespace {

using namespace etpack::testing;

bool has_code(const std::vector<Finding>& findings, const std::string& code) {
  return std::any_of(findings.begin(), findings.end(), [&](const Finding& f) { return f.code == code; });
}

std::string codes(const std::vector<Finding>& findings) {
  std::string out;
  for (const Finding& f : findings) out += f.code + " (" + f.message + ") ";
  return out;
}

ValidationReport validate_outputs(const Outputs& out) { return validate_artifacts(out.pte, out.ptds); }

TEST(RepackRules, ExternalizingEverythingKeepsThePlaceholder) {
  Blob file = load_file(artifacts_dir() + "/arduino_add.pte");
  RepackOptions options;
  options.externalize = ExternalizeOptions{};
  auto result = repack(FileSource::in_memory(file), options);
  ASSERT_TRUE(result.ok()) << result.error().message;
  Outputs out = materialize(result->artifacts);
  EXPECT_EQ(constant_offsets(out.pte), std::vector<uint64_t>{0});  // what upstream's emitter writes
  ValidationReport report = validate_outputs(out);
  EXPECT_TRUE(report.ok()) << codes(report.errors);
}

TEST(RepackRules, InputWithoutPlaceholderGetsItAndConstantsMoveToTheSegment) {
  Blob file = load_file(artifacts_dir() + "/module_linear_no_constant_segment.pte");
  ASSERT_TRUE(constant_offsets(file).empty());
  std::string problem;
  auto before = tensor_bytes(file, {}, &problem);
  ASSERT_TRUE(problem.empty()) << problem;
  ASSERT_FALSE(before.empty());

  auto result = repack(FileSource::in_memory(file), RepackOptions{});
  ASSERT_TRUE(result.ok()) << result.error().message;
  Outputs out = materialize(result->artifacts);
  std::vector<uint64_t> offsets = constant_offsets(out.pte);
  ASSERT_GT(offsets.size(), 1u);  // placeholder + the old constant_buffer entries
  EXPECT_EQ(offsets[0], 0u);
  auto read_back = read_pte_program(out.pte);
  ASSERT_TRUE(read_back.ok());
  const Value& inline_buffers = read_back->program.get("constant_buffer");
  EXPECT_TRUE(!inline_buffers.is_items() || inline_buffers.items().empty());
  ValidationReport report = validate_outputs(out);
  EXPECT_TRUE(report.ok()) << codes(report.errors);
  EXPECT_EQ(tensor_bytes(out.pte, {}, &problem), before);
  EXPECT_TRUE(problem.empty()) << problem;
}

TEST(RepackRules, ExternalOnlyProgramWithoutPlaceholderGetsIt) {
  std::string dir = conformance_dir() + "/11_external_constants_only";
  Blob file = load_file(dir + "/out.pte");
  ASSERT_TRUE(constant_offsets(file).empty());
  RepackOptions options;
  options.data = ptds_beside(dir);
  auto result = repack(FileSource::in_memory(file), options);
  ASSERT_TRUE(result.ok()) << result.error().message;
  Outputs out = materialize(result->artifacts);
  EXPECT_EQ(constant_offsets(out.pte), std::vector<uint64_t>{0});
  ASSERT_EQ(out.ptds.size(), 1u);
  EXPECT_EQ(out.ptds[0].first, "model.ptd");  // the data file's tag is kept
  auto model = deserialize_ptd(options.data[0].second.file);
  ASSERT_TRUE(model.ok());
  EXPECT_EQ(result->carried_entries, model->payload.named_data.size());
  ValidationReport report = validate_outputs(out);
  EXPECT_TRUE(report.ok()) << codes(report.errors);
}

// One buffer read as [2, 4] by one method and as [4, 2] by another (the
// shape a tensor in a second method gets after upstream dedups equal bytes):
// 02_constants_default's Double [2, 4] constant, in a copy of its method.
Blob two_methods_sharing_a_buffer(uint64_t* buffer_out) {
  auto pte = deserialize_pte_binary(load_file(conformance_dir() + "/02_constants_default/out.pte"));
  if (!pte.ok()) return Blob();
  TableValue program = pte->program;
  Value& plans = program.at("execution_plan");
  Value second = plans.items()[0];
  second.table().at("name") = Value::from_string("forward_transposed");
  plans.items().push_back(second);
  for (Value& v : plans.items()[1].table().at("values").items()) {
    Value& val = v.table().at("val");
    if (!val.is_table() || val.table().def->name != "Tensor") continue;
    TableValue& t = val.table();
    if (t.get_uint("data_buffer_idx") == 0 || sizes_of(t) != std::vector<int64_t>{2, 4}) continue;
    *buffer_out = t.get_uint("data_buffer_idx");
    t.at("sizes") = Value::from_scalars(int32_vector({4, 2}));
    return write_pte(program);
  }
  return Blob();
}

TEST(RepackRules, BufferSharedByTwoShapesGetsOneKeyPerLayout) {
  uint64_t buffer = 0;
  Blob file = two_methods_sharing_a_buffer(&buffer);
  ASSERT_GT(file.size(), 0u);
  std::string problem;
  auto before = tensor_bytes(file, {}, &problem);
  ASSERT_TRUE(problem.empty()) << problem;

  RepackOptions options;
  options.externalize = ExternalizeOptions{};
  auto result = repack(FileSource::in_memory(file), options);
  ASSERT_TRUE(result.ok()) << result.error().message;
  const std::string base = "constant." + std::to_string(buffer);
  std::vector<std::string> keys;
  for (const MovedTensor& m : result->moved)
    if (m.key.rfind(base + ".", 0) == 0) keys.push_back(m.key);
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{base + ".Double.2x4", base + ".Double.4x2"}));

  Outputs out = materialize(result->artifacts);
  ValidationReport report = validate_outputs(out);
  EXPECT_TRUE(report.ok()) << codes(report.errors);
  auto ptd = deserialize_ptd(out.ptds.at(0).second);
  ASSERT_TRUE(ptd.ok());
  std::map<std::string, DataEntry> entries(ptd->payload.named_data.begin(), ptd->payload.named_data.end());
  const DataEntry& a = entries.at(base + ".Double.2x4");
  const DataEntry& b = entries.at(base + ".Double.4x2");
  EXPECT_EQ(a.buffer_index, b.buffer_index);  // the bytes are stored once
  EXPECT_EQ(a.tensor_layout->sizes, (std::vector<int32_t>{2, 4}));
  EXPECT_EQ(b.tensor_layout->sizes, (std::vector<int32_t>{4, 2}));
  EXPECT_EQ(tensor_bytes(out.pte, out.ptds, &problem), before);
  EXPECT_TRUE(problem.empty()) << problem;
}

TEST(RepackRules, OneNameForTwoLayoutsIsRefused) {
  uint64_t buffer = 0;
  Blob file = two_methods_sharing_a_buffer(&buffer);
  auto pte = deserialize_pte_binary(file);
  ASSERT_TRUE(pte.ok());
  // Both tensors carry the same fully qualified name.
  TableValue program = pte->program;
  for (Value& plan : program.at("execution_plan").items())
    for (Value& v : plan.table().at("values").items()) {
      Value& val = v.table().at("val");
      if (!val.is_table() || val.table().def->name != "Tensor" || val.table().get_uint("data_buffer_idx") != buffer) continue;
      TableValue info(program_schema().find_table("ExtraTensorInfo"));
      info.at("fully_qualified_name") = Value::from_string("shared.weight");
      val.table().at("extra_tensor_info") = Value::from_table(std::move(info));
    }
  RepackOptions options;
  options.externalize = ExternalizeOptions{};
  auto result = repack(FileSource::in_memory(write_pte(program)), options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kLayoutConflict) << result.error().message;
  EXPECT_NE(result.error().message.find("shared.weight"), std::string::npos);
}

TEST(RepackRules, BadHeaderMagicIsRefusedWithFindings) {
  std::vector<uint8_t> bytes = read_bytes(conformance_dir() + "/02_constants_default/out.pte");
  ASSERT_GT(bytes.size(), 16u);
  ASSERT_EQ(std::memcmp(bytes.data() + 8, "eh00", 4), 0);
  bytes[8] = 'x';
  RepackRefusal why;
  auto result = repack(FileSource::in_memory(Blob::own(bytes)), RepackOptions{}, &why);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kInvalidInput) << result.error().message;
  ASSERT_FALSE(why.findings.empty());
  EXPECT_NE(result.error().message.find(why.findings[0].code), std::string::npos);
}

TEST(RepackRules, IndexOutOfRangeIsRefusedWithFindings) {
  auto pte = deserialize_pte_binary(load_file(conformance_dir() + "/02_constants_default/out.pte"));
  ASSERT_TRUE(pte.ok());
  TableValue program = pte->program;
  bool changed = false;
  for (Value& v : program.at("execution_plan").items()[0].table().at("values").items()) {
    Value& val = v.table().at("val");
    if (changed || !val.is_table() || val.table().def->name != "Tensor" || val.table().get_uint("data_buffer_idx") == 0) continue;
    val.table().set_uint("data_buffer_idx", 999);
    changed = true;
  }
  ASSERT_TRUE(changed);
  RepackRefusal why;
  auto result = repack(FileSource::in_memory(write_pte(program)), RepackOptions{}, &why);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kInvalidInput) << result.error().message;
  EXPECT_TRUE(has_code(why.findings, finding::kTensorDataIndexOutOfRange)) << codes(why.findings);
}

TEST(RepackRules, MissingDataIsRefusedWithItsKeys) {
  std::string dir = conformance_dir() + "/13_everything";
  Blob file = load_file(dir + "/out.pte");
  RepackRefusal why;
  auto result = repack(FileSource::in_memory(file), RepackOptions{}, &why);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kMissingExternalData);
  EXPECT_EQ(why.missing_keys, (std::vector<std::string>{"lin.weight", "lin.bias"}));
  EXPECT_NE(result.error().message.find("'lin.weight', 'lin.bias'"), std::string::npos) << result.error().message;

  // Only one of the two files: the keys the other holds are still missing.
  RepackOptions partial;
  for (auto& [name, source] : ptds_beside(dir))
    if (name == "shard_b.ptd") partial.data.emplace_back(name, source);
  RepackRefusal why2;
  auto refused = repack(FileSource::in_memory(file), partial, &why2);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kMissingExternalData) << refused.error().message;
}

TEST(RepackRules, MergedFilesAlsoResolveExternalTensors) {
  std::string dir = conformance_dir() + "/13_everything";
  RepackOptions options;
  for (auto& [name, source] : ptds_beside(dir)) options.merge.push_back(source);
  options.merge_tag = "all";
  auto result = repack(FileSource::in_memory(load_file(dir + "/out.pte")), options);
  ASSERT_TRUE(result.ok()) << result.error().message;
  Outputs out = materialize(result->artifacts);
  ASSERT_EQ(out.ptds.size(), 1u);
  EXPECT_EQ(out.ptds[0].first, "all.ptd");
  ValidationReport report = validate_outputs(out);
  EXPECT_TRUE(report.ok()) << codes(report.errors);
}

TEST(RepackRules, AllowMissingDataKeepsTheReferences) {
  Blob file = load_file(conformance_dir() + "/13_everything/out.pte");
  RepackOptions options;
  options.allow_missing_data = true;
  auto result = repack(FileSource::in_memory(file), options);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->missing_keys, (std::vector<std::string>{"lin.weight", "lin.bias"}));
  Outputs out = materialize(result->artifacts);
  // Only the references the caller allowed to stay unresolved remain (an
  // error for validate: load_method would fail without their .ptd).
  ValidationReport report = validate_outputs(out);
  ASSERT_EQ(report.errors.size(), 2u) << codes(report.errors);
  for (const Finding& f : report.errors) EXPECT_EQ(f.code, finding::kExternalTensorUnresolved);
}

TEST(RepackRules, DataTagIsTheNameWithoutPtd) {
  EXPECT_EQ(data_tag("model.ptd"), "model");
  EXPECT_EQ(data_tag("weights"), "weights");
  EXPECT_EQ(data_tag("a.ptd.ptd"), "a.ptd");
  EXPECT_EQ(data_tag(".ptd"), ".ptd");
}

}  // namespace
}  // namespace etpack
