// BundledProgram (.bpte): every vector of ../shared/conformance-bpte
// reproduced and read back (through the conformance runner), the reader's
// refusals as coded errors without reading out of bounds, and validate's
// findings of test cases against their method, naming suite, case and value.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "conformance/conformance_runner.h"
#include "core/json.h"
#include "ops/bundled_program.h"
#include "validate/bundled_checks.h"
#include "read/bundled_reader.h"
#include "unit/test_files.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;
using testing::load_file;

fs::path bpte_root() { return fs::path(std::string(ETPACK_CONFORMANCE_DIR) + "-bpte"); }

TEST(BundledProgram, EveryVectorReproducedReadBackOrRefused) {
  const auto cases = conformance::find_cases({bpte_root().string()});
  ASSERT_GE(cases.size(), 35u);  // 26 vectors, 8 refused cases, the sample
  for (const std::string& dir : cases) {
    const auto r = conformance::run_case(dir);
    EXPECT_TRUE(r.passed) << r.name << ": " << r.detail;
  }
}

// JSON text of a bundle whose program is add.pte (forward(x[1], y[1]) -> [1]).
Result<std::vector<uint8_t>> bundle_of(const std::string& suites) {
  const std::string text = "{\"version\": 2, \"program\": {\"file\": \"add.pte\"}, \"method_test_suites\": " + suites + "}";
  return serialize_bundled_program(text, [](const Json&) -> Result<Blob> {
    return load_file(bpte_root() / "v01_add_one_case" / "program.pte");
  });
}

std::string tensor(const char* data_bytes, const char* sizes = "[1]", int scalar_type = 6, const char* dim_order = "[0]") {
  return std::string("{\"val_type\": \"Tensor\", \"val\": {\"scalar_type\": ") + std::to_string(scalar_type) +
         ", \"sizes\": " + sizes + ", \"dim_order\": " + dim_order + ", \"data\": " + data_bytes + "}}";
}

ValidationReport validate_bytes(const std::vector<uint8_t>& bytes) {
  auto report = validate_bundled_program(FileSource::in_memory(Blob::view(bytes.data(), bytes.size())), {}, {});
  EXPECT_TRUE(report.ok()) << report.error().message;
  return report.ok() ? *report : ValidationReport();
}

bool has(const std::vector<Finding>& findings, const std::string& code, const std::string& path) {
  for (const Finding& f : findings)
    if (f.code == code && f.path == path) return true;
  return false;
}

std::string describe(const ValidationReport& r) { return write_json(r.to_json()); }

TEST(BundledProgram, ValidateAcceptsAMatchingBundle) {
  for (const char* name : {"v01_add_one_case", "v02_add_three_cases", "v11_real_add_default"}) {
    const Blob file = load_file(bpte_root() / name / "out.bpte");
    auto report = validate_bundled_program(FileSource::in_memory(file), {}, {});
    ASSERT_TRUE(report.ok());
    EXPECT_TRUE(report->ok()) << name << ": " << describe(*report);
  }
}

TEST(BundledProgram, ValidateNamesSuiteCaseAndValue) {
  const std::string four = "[0, 0, 128, 63]";  // 1.0f
  // Data shorter than its sizes: an error naming the value.
  auto bytes = bundle_of("[{\"method_name\": \"forward\", \"test_cases\": [{\"inputs\": [" + tensor(four.c_str()) + ", " +
                         tensor("[0, 0]") + "], \"expected_outputs\": [" + tensor(four.c_str()) + "]}]}]");
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  ValidationReport r = validate_bytes(*bytes);
  EXPECT_TRUE(has(r.errors, finding::kBundleTensorDataShort, "method_test_suites[0].test_cases[0].inputs[1].val.data")) << describe(r);
  EXPECT_NE(describe(r).find("suite 'forward', case 0, input 1"), std::string::npos) << describe(r);

  // One input too few, a wrong dtype, a wrong shape, an unknown method, a None value.
  bytes = bundle_of("[{\"method_name\": \"forward\", \"test_cases\": [{\"inputs\": [" + tensor(four.c_str()) +
                    "], \"expected_outputs\": [" + tensor("[0, 0, 0, 0, 0, 0, 0, 0]", "[1]", 7) + "]}, {\"inputs\": [" +
                    tensor("[0, 0, 0, 0, 0, 0, 0, 0]", "[2]") + ", {\"val_type\": null, \"val\": null}], \"expected_outputs\": []}]},"
                    " {\"method_name\": \"encode\", \"test_cases\": []}]");
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  r = validate_bytes(*bytes);
  EXPECT_TRUE(has(r.errors, finding::kBundleValueCount, "method_test_suites[0].test_cases[0].inputs")) << describe(r);
  EXPECT_TRUE(has(r.errors, finding::kBundleTensorDtype, "method_test_suites[0].test_cases[0].expected_outputs[0].val.scalar_type")) << describe(r);
  EXPECT_TRUE(has(r.errors, finding::kBundleTensorShape, "method_test_suites[0].test_cases[1].inputs[0].val.sizes")) << describe(r);
  EXPECT_TRUE(has(r.errors, finding::kBundleValueType, "method_test_suites[0].test_cases[1].inputs[1].val")) << describe(r);
  EXPECT_TRUE(has(r.warnings, finding::kBundleNoExpectedOutputs, "method_test_suites[0].test_cases[1].expected_outputs")) << describe(r);
  // A suite naming no method is never read by the runtime: a warning.
  EXPECT_TRUE(has(r.warnings, finding::kBundleMethodNotFound, "method_test_suites[1].method_name")) << describe(r);
}

TEST(BundledProgram, ValidateJudgesTheEmbeddedProgram) {
  // Vector v30 embeds an empty program; v17 names methods its program lacks
  // (suites the runtime never reads: warnings).
  auto empty = validate_bundled_program(FileSource::in_memory(load_file(bpte_root() / "v30_empty_program_bytes" / "out.bpte")), {}, {});
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->ok());
  EXPECT_TRUE(has(empty->errors, finding::kMissingField, "program")) << describe(*empty);
  auto names = validate_bundled_program(FileSource::in_memory(load_file(bpte_root() / "v17_multi_methods" / "out.bpte")), {}, {});
  ASSERT_TRUE(names.ok());
  EXPECT_TRUE(has(names->warnings, finding::kBundleMethodNotFound, "method_test_suites[1].method_name")) << describe(*names);
  EXPECT_TRUE(has(names->warnings, finding::kBundleMethodNotFound, "method_test_suites[2].method_name")) << describe(*names);
}

TEST(BundledProgram, WriterRefusesWhatUpstreamsDataclassesCannotHold) {
  auto missing = bundle_of("[{\"method_name\": \"forward\"}]");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kSchemaMismatch);
  EXPECT_NE(missing.error().message.find("method_test_suites[0].test_cases"), std::string::npos) << missing.error().message;
  auto no_data = bundle_of("[{\"method_name\": \"f\", \"test_cases\": [{\"inputs\": [{\"val_type\": \"Tensor\", \"val\": "
                           "{\"scalar_type\": 6, \"sizes\": [1], \"dim_order\": [0]}}], \"expected_outputs\": []}]}]");
  ASSERT_FALSE(no_data.ok());
  EXPECT_NE(no_data.error().message.find("inputs[0].val.data"), std::string::npos) << no_data.error().message;
  auto no_int = bundle_of("[{\"method_name\": \"f\", \"test_cases\": [{\"inputs\": [{\"val_type\": \"Int\", \"val\": {\"int_val\": null}}], \"expected_outputs\": []}]}]");
  ASSERT_FALSE(no_int.ok());
  EXPECT_NE(no_int.error().message.find("inputs[0].val.int_val"), std::string::npos) << no_int.error().message;
  auto null_case = bundle_of("[{\"method_name\": \"f\", \"test_cases\": [null]}]");
  ASSERT_FALSE(null_case.ok());
  EXPECT_EQ(null_case.error().code, ErrorCode::kSchemaMismatch);
}

TEST(BundledProgram, ReaderRefusesEveryPrefixAndForeignIdentifier) {
  const std::vector<uint8_t> whole = testing::read_bytes(bpte_root() / "v18_all_value_types" / "out.bpte");
  ASSERT_FALSE(whole.empty());
  ASSERT_TRUE(read_bundled_program(Blob::view(whole.data(), whole.size())).ok());
  for (size_t n = 0; n < whole.size(); ++n) {
    std::vector<uint8_t> prefix(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(n));  // exact size: ASan sees overreads
    auto r = read_bundled_program(Blob::view(prefix.data(), prefix.size()));
    if (!r.ok()) {
      EXPECT_TRUE(r.error().code == ErrorCode::kMalformedFile) << n << ": " << r.error().message;
      EXPECT_NE(r.error().message.find("offset"), std::string::npos) << r.error().message;
    }
  }
  std::vector<uint8_t> other = whole;
  other[6] = '0';
  other[7] = '7';  // BP07
  auto version = read_bundled_program(Blob::view(other.data(), other.size()));
  ASSERT_FALSE(version.ok());
  EXPECT_EQ(version.error().code, ErrorCode::kUnsupportedVersion);
  other[4] = 'X';
  auto foreign = read_bundled_program(Blob::view(other.data(), other.size()));
  ASSERT_FALSE(foreign.ok());
  EXPECT_EQ(foreign.error().code, ErrorCode::kMalformedFile);
  // validate says the same as findings.
  auto report = validate_bundled_program(FileSource::in_memory(Blob::view(other.data(), other.size())), {}, {});
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->errors.size(), 1u);
  EXPECT_EQ(report->errors[0].code, finding::kBadIdentifier);
}

TEST(BundledProgram, ReaderSurvivesEveryByteFlipped) {
  const std::vector<uint8_t> whole = testing::read_bytes(bpte_root() / "v18_all_value_types" / "out.bpte");
  ASSERT_FALSE(whole.empty());
  for (size_t i = 0; i < whole.size(); ++i) {
    std::vector<uint8_t> bytes = whole;
    bytes[i] ^= 0xFF;
    auto r = read_bundled_program(Blob::view(bytes.data(), bytes.size()));
    if (!r.ok()) continue;
    ValidationReport report;
    check_bundle(r->bundle, nullptr, report);  // must not crash or read out of bounds
    // And against the embedded program, when it still reads.
    auto judged = validate_bundled_program(FileSource::in_memory(Blob::view(bytes.data(), bytes.size())), {}, {});
    EXPECT_TRUE(judged.ok()) << i << ": " << judged.error().message;
  }
}

TEST(BundledProgram, InspectDescribesBundleAndProgram) {
  const Blob file = load_file(bpte_root() / "sample" / "bundled_program.bpte");
  auto reply = inspect_bundled_program(FileSource::in_memory(file));
  ASSERT_TRUE(reply.ok()) << reply.error().message;
  auto json = parse_json(reply->json);
  ASSERT_TRUE(json.ok());
  EXPECT_EQ(json->find("format")->text(), "bpte");
  EXPECT_EQ(json->find("version")->as_uint64(), 2u) << reply->json.substr(0, 300);
  ASSERT_TRUE(json->find("programSummary")->is_object()) << reply->json.substr(0, 300);
  EXPECT_EQ(json->find("programSummary")->find("format")->text(), "pte");
  const Json* suites = json->find("methodTestSuites");
  ASSERT_TRUE(suites && suites->is_array());
  EXPECT_EQ(suites->items().size(), 1u);
  EXPECT_EQ(suites->items()[0].find("methodName")->text(), "forward");
  const Json& first = suites->items()[0].find("testCases")->items()[0].find("inputs")->items()[0];
  EXPECT_EQ(first.find("type")->text(), "Tensor");
  EXPECT_EQ(first.find("dtype")->text(), "Int");
  EXPECT_EQ(first.find("dataSize")->as_uint64(), 16u);
}

}  // namespace
}  // namespace etpack
