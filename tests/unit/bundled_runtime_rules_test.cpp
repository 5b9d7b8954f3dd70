// validate of a .bpte judges each test case as upstream's runtime uses it
// (devtools/bundled_program/bundled_program.cpp over Method::set_input and
// TensorImpl): an error where it refuses, aborts, reads out of bounds or
// loads values wrongly, a warning where it reads past, nothing where it is
// fine. One test per rule; each names the runtime's behaviour it mirrors.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/json.h"
#include "encode/pte_writer.h"
#include "ops/bundled_program.h"
#include "validate/bundled_checks.h"
#include "read/pte_reader.h"
#include "schema/schema.h"
#include "unit/test_files.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;
using testing::load_file;

// forward(x[1], y[1]) -> [1], float, all static.
Blob add_program() { return load_file(fs::path(std::string(ETPACK_CONFORMANCE_DIR) + "-bpte") / "v01_add_one_case" / "program.pte"); }

// forward(x[2,3], y[2,3]) -> [2,3], float; `edit` changes its plan first
// (values[0] is x, values[1] is y).
Blob base_program(const std::function<void(TableValue& plan)>& edit = {}) {
  auto read = deserialize_pte_binary(load_file(fs::path(ETPACK_CONFORMANCE_DIR) / "02_constants_default" / "out.pte"));
  EXPECT_TRUE(read.ok());
  if (edit) edit(read->program.at("execution_plan").items()[0].table());
  auto cord = serialize_pte_binary(read->program, nullptr, read->named_data ? &*read->named_data : nullptr, PteConfig{});
  EXPECT_TRUE(cord.ok()) << (cord.ok() ? "" : cord.error().message);
  return Blob::own(std::move(cord->to_bytes().value()));
}

TableValue& value_at(TableValue& plan, size_t index) { return plan.at("values").items()[index].table(); }

// base_program with a third input: a scalar EValue of `kind` (KernelTypes:
// Int 2, Bool 3, Double 4) holding `field` = `v`, appended to the values.
Blob with_scalar_input(const char* kind, uint64_t union_type, const char* field, Value v) {
  return base_program([&](TableValue& plan) {
    TableValue scalar(program_schema().find_table(kind));
    scalar.at(field) = std::move(v);
    TableValue evalue(program_schema().find_table("EValue"));
    evalue.at("val_type") = Value::from_uint(union_type);
    evalue.at("val") = Value::from_table(std::move(scalar));
    auto& values = plan.at("values").items();
    const uint32_t index = static_cast<uint32_t>(values.size());
    values.push_back(Value::from_table(std::move(evalue)));
    const Blob& inputs = plan.get("inputs").scalars();
    std::vector<uint8_t> raw(inputs.data(), inputs.data() + inputs.size());
    for (int i = 0; i < 4; ++i) raw.push_back(static_cast<uint8_t>(index >> (8 * i)));  // int32 LE
    plan.at("inputs") = Value::from_scalars(Blob::own(std::move(raw)));
  });
}

std::string tensor(const std::string& sizes, const std::string& dim_order, size_t data_bytes, int scalar_type = 6) {
  std::string data = "[";
  for (size_t i = 0; i < data_bytes; ++i) data += i ? ", 0" : "0";
  return "{\"val_type\": \"Tensor\", \"val\": {\"scalar_type\": " + std::to_string(scalar_type) + ", \"sizes\": " + sizes +
         ", \"dim_order\": " + dim_order + ", \"data\": " + data + "]}}";
}
const std::string kOne = tensor("[1]", "[0]", 4);       // fits add_program's x, y and output
const std::string kTwoByThree = tensor("[2, 3]", "[0, 1]", 24);  // fits base_program's

std::string one_case(const std::string& inputs, const std::string& outputs, const char* method = "forward") {
  return std::string("{\"method_name\": \"") + method + "\", \"test_cases\": [{\"inputs\": [" + inputs + "], \"expected_outputs\": [" +
         outputs + "]}]}";
}

ValidationReport validate_suites(const Blob& program, const std::string& suites) {
  const std::string text = "{\"version\": 2, \"program\": {\"file\": \"p.pte\"}, \"method_test_suites\": [" + suites + "]}";
  auto bytes = serialize_bundled_program(text, [&](const Json&) -> Result<Blob> { return program; });
  EXPECT_TRUE(bytes.ok()) << bytes.error().message;
  if (!bytes.ok()) return {};
  auto report = validate_bundled_program(FileSource::in_memory(Blob::own(std::move(*bytes))), {}, {});
  EXPECT_TRUE(report.ok()) << report.error().message;
  return report.ok() ? *report : ValidationReport();
}

// The bundle's own findings (file "bpte"): "E CODE path" / "W CODE path".
std::vector<std::string> bundle_findings(const ValidationReport& r) {
  std::vector<std::string> out;
  for (const Finding& f : r.errors)
    if (f.file == "bpte") out.push_back("E " + f.code + " " + f.path);
  for (const Finding& f : r.warnings)
    if (f.file == "bpte") out.push_back("W " + f.code + " " + f.path);
  return out;
}

using Findings = std::vector<std::string>;
const std::string kCase = "method_test_suites[0].test_cases[0].";

TEST(BundledRuntimeRules, SuitesTheLookupNeverReachesAreWarningsAndNotJudged) {
  // get_method_test_suite returns the first suite whose name is the
  // method's: a second one, or one naming no method, is never read.
  const std::string none = "{\"val_type\": null, \"val\": null}";
  auto r = validate_suites(add_program(), one_case(kOne + ", " + kOne, kOne) + ", " + one_case(none, none, "forward") + ", " +
                                              one_case(none, none, "encode"));
  EXPECT_EQ(bundle_findings(r), (Findings{"W BUNDLE_SUITE_DUPLICATE method_test_suites[1]",
                                          "W BUNDLE_METHOD_NOT_FOUND method_test_suites[2].method_name"}));
  EXPECT_TRUE(r.ok());
}

TEST(BundledRuntimeRules, FewerValuesThanTheMethodIsAnErrorMoreAWarning) {
  // load_bundled_input indexes one value per method input, unchecked
  // (reading past the list); verify_method_outputs one per method output.
  auto r = validate_suites(add_program(), one_case(kOne, kOne));
  EXPECT_EQ(bundle_findings(r), (Findings{"E BUNDLE_VALUE_COUNT_MISMATCH " + kCase + "inputs"}));
  // Values past the method's count are never read, so a None there is no error.
  const std::string none = "{\"val_type\": null, \"val\": null}";
  r = validate_suites(add_program(), one_case(kOne + ", " + kOne + ", " + none, kOne + ", " + none));
  EXPECT_EQ(bundle_findings(r), (Findings{"W BUNDLE_VALUES_UNUSED " + kCase + "inputs", "W BUNDLE_VALUES_UNUSED " + kCase + "expected_outputs"}));
  EXPECT_TRUE(r.ok());
  // No expected outputs: verify_method_outputs returns NotSupported (upstream writes such cases).
  r = validate_suites(add_program(), one_case(kOne + ", " + kOne, ""));
  EXPECT_EQ(bundle_findings(r), (Findings{"W BUNDLE_NO_EXPECTED_OUTPUTS " + kCase + "expected_outputs"}));
}

TEST(BundledRuntimeRules, ExpectedOutputsMustBeTensors) {
  // verify_method_outputs refuses any other expected output (NotSupported).
  auto r = validate_suites(add_program(), one_case(kOne + ", " + kOne, "{\"val_type\": \"Int\", \"val\": {\"int_val\": 2}}"));
  ASSERT_EQ(bundle_findings(r), (Findings{"E BUNDLE_VALUE_TYPE_MISMATCH " + kCase + "expected_outputs[0].val"}));
  EXPECT_NE(r.errors.back().message.find("only Tensor"), std::string::npos) << r.errors.back().message;
}

TEST(BundledRuntimeRules, AnInputsDimOrderIsNeverReadAnExpectedOutputsIs) {
  // set_input never reads the source tensor's dim order.
  auto r = validate_suites(add_program(), one_case(tensor("[1]", "[3]", 4) + ", " + tensor("[1]", "[]", 4), kOne));
  EXPECT_EQ(bundle_findings(r), (Findings{"W BUNDLE_DIM_ORDER_IGNORED " + kCase + "inputs[0].val.dim_order",
                                          "W BUNDLE_DIM_ORDER_IGNORED " + kCase + "inputs[1].val.dim_order"}));
  EXPECT_TRUE(r.ok());
  // tensors_are_close turns the first `rank` entries into strides and
  // aborts when they are no permutation; fewer entries are read past.
  r = validate_suites(add_program(), one_case(kOne + ", " + kOne, tensor("[1]", "[3]", 4)));
  EXPECT_EQ(bundle_findings(r), (Findings{"E BUNDLE_TENSOR_INVALID " + kCase + "expected_outputs[0].val.dim_order"}));
  r = validate_suites(add_program(), one_case(kOne + ", " + kOne, tensor("[1]", "[]", 4)));
  EXPECT_EQ(bundle_findings(r), (Findings{"E BUNDLE_TENSOR_INVALID " + kCase + "expected_outputs[0].val.dim_order"}));
  r = validate_suites(add_program(), one_case(kOne + ", " + kOne, tensor("[1]", "[0, 9]", 4)));
  EXPECT_EQ(bundle_findings(r), (Findings{"W BUNDLE_DIM_ORDER_IGNORED " + kCase + "expected_outputs[0].val.dim_order"}));
}

TEST(BundledRuntimeRules, AnotherMemoryLayoutIsAnError) {
  // An input's bytes are copied as they are into the method's layout (the
  // values land elsewhere); an expected output with other strides aborts
  // tensors_are_close.
  const std::string transposed = tensor("[2, 3]", "[1, 0]", 24);
  auto r = validate_suites(base_program(), one_case(transposed + ", " + kTwoByThree, transposed));
  EXPECT_EQ(bundle_findings(r), (Findings{"E BUNDLE_TENSOR_SHAPE_MISMATCH " + kCase + "inputs[0].val.dim_order",
                                          "E BUNDLE_TENSOR_SHAPE_MISMATCH " + kCase + "expected_outputs[0].val.dim_order"}));
  // x as [1, 6]: the two dim orders place every element of an input alike
  // (a dim of size 1 has no stride to speak of), but the strides differ.
  const Blob wide = base_program([](TableValue& plan) {
    std::vector<uint8_t> sizes{1, 0, 0, 0, 6, 0, 0, 0};  // int32 [1, 6]
    value_at(plan, 0).at("val").table().at("sizes") = Value::from_scalars(Blob::own(std::move(sizes)));
  });
  const std::string one_by_six = tensor("[1, 6]", "[1, 0]", 24);
  r = validate_suites(wide, one_case(one_by_six + ", " + kTwoByThree, kTwoByThree));
  EXPECT_EQ(bundle_findings(r), Findings{});
}

TEST(BundledRuntimeRules, ADynamicTensorTakesAnySizesUpToItsElementCount) {
  // internal_resize_contiguous: STATIC keeps its sizes; DYNAMIC_BOUND and
  // DYNAMIC_UNBOUND (treated as bounded) take the same rank with at most
  // the planned number of elements.
  for (int64_t dynamism : {1, 2}) {
    const Blob program = base_program([&](TableValue& plan) { value_at(plan, 1).at("val").table().at("shape_dynamism") = Value::from_int(dynamism); });
    for (const auto& [fits, bytes] : std::vector<std::pair<const char*, size_t>>{{"[3, 2]", 24}, {"[1, 6]", 24}, {"[2, 2]", 16}}) {
      auto r = validate_suites(program, one_case(kTwoByThree + ", " + tensor(fits, "[0, 1]", bytes), kTwoByThree));
      EXPECT_EQ(bundle_findings(r), Findings{}) << fits;
    }
    auto r = validate_suites(program, one_case(kTwoByThree + ", " + tensor("[3, 3]", "[0, 1]", 36), kTwoByThree));
    EXPECT_EQ(bundle_findings(r), (Findings{"E BUNDLE_TENSOR_SHAPE_MISMATCH " + kCase + "inputs[1].val.sizes"})) << dynamism;
    r = validate_suites(program, one_case(kTwoByThree + ", " + tensor("[6]", "[0]", 24), kTwoByThree));
    EXPECT_EQ(bundle_findings(r), (Findings{"E BUNDLE_TENSOR_SHAPE_MISMATCH " + kCase + "inputs[1].val.sizes"})) << dynamism;
  }
  // x stays STATIC: [3, 2] is refused.
  auto r = validate_suites(base_program(), one_case(tensor("[3, 2]", "[0, 1]", 24) + ", " + kTwoByThree, kTwoByThree));
  EXPECT_EQ(bundle_findings(r), (Findings{"E BUNDLE_TENSOR_SHAPE_MISMATCH " + kCase + "inputs[0].val.sizes"}));
}

TEST(BundledRuntimeRules, ScalarInputsMustEqualTheTracedValue) {
  // set_input keeps a program's Int/Bool input as traced and refuses another
  // value; a Double within 1e-4 + 1e-5 * |traced| (NaN equals NaN).
  const std::string tensors = kTwoByThree + ", " + kTwoByThree + ", ";
  auto scalar = [](const char* kind, const char* field, const char* v) {
    return std::string("{\"val_type\": \"") + kind + "\", \"val\": {\"" + field + "\": " + v + "}}";
  };
  auto judge = [&](const Blob& program, const std::string& value) {
    return bundle_findings(validate_suites(program, one_case(tensors + value, kTwoByThree)));
  };
  const Findings refused{"E BUNDLE_INPUT_VALUE_MISMATCH " + kCase + "inputs[2].val"};
  const Blob with_int = with_scalar_input("Int", 2, "int_val", Value::from_int(7));
  EXPECT_EQ(judge(with_int, scalar("Int", "int_val", "7")), Findings{});
  auto r = validate_suites(with_int, one_case(tensors + scalar("Int", "int_val", "8"), kTwoByThree));
  ASSERT_EQ(bundle_findings(r), refused);
  EXPECT_NE(r.errors.back().message.find("is 8; the program's input holds 7"), std::string::npos) << r.errors.back().message;
  EXPECT_TRUE(r.errors.size() == 1) << "the edited program itself is valid: " << write_json(r.to_json());

  const Blob with_bool = with_scalar_input("Bool", 3, "bool_val", Value::from_uint(1));
  EXPECT_EQ(judge(with_bool, scalar("Bool", "bool_val", "true")), Findings{});
  EXPECT_EQ(judge(with_bool, scalar("Bool", "bool_val", "false")), refused);

  const Blob with_double = with_scalar_input("Double", 4, "double_val", Value::from_double(1.5));
  for (const char* close : {"1.5", "1.50009", "1.49991"}) EXPECT_EQ(judge(with_double, scalar("Double", "double_val", close)), Findings{}) << close;
  for (const char* far : {"1.5002", "NaN", "Infinity"}) EXPECT_EQ(judge(with_double, scalar("Double", "double_val", far)), refused) << far;
  const Blob with_nan = with_scalar_input("Double", 4, "double_val", Value::from_double(std::nan("")));
  EXPECT_EQ(judge(with_nan, scalar("Double", "double_val", "NaN")), Findings{});
  // Another kind than the program's is refused by its tag.
  EXPECT_EQ(judge(with_int, scalar("Double", "double_val", "7.0")), (Findings{"E BUNDLE_VALUE_TYPE_MISMATCH " + kCase + "inputs[2].val"}));
}

TEST(BundledRuntimeRules, TheProgramMustStartAtAMultipleOf16) {
  // Program::load refuses data not aligned to alignof(max_align_t).
  std::vector<uint8_t> file(96, 0);
  const Blob whole = Blob::view(file.data(), file.size());
  ValidationReport r;
  check_program_placement(whole, Blob::view(file.data() + 32, 64), r);
  EXPECT_TRUE(r.errors.empty());
  check_program_placement(whole, Blob::view(file.data() + 40, 56), r);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].code, finding::kBundleProgramMisaligned);
  EXPECT_EQ(r.errors[0].offset, std::optional<uint64_t>(40));
}

}  // namespace
}  // namespace etpack
