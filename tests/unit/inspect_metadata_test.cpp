// The model card: constant methods (no instruction, non-tensor constant
// outputs) come back as inspect's "metadata", values exact.
#include <gtest/gtest.h>

#include <string>

#include "core/json.h"
#include "encode/pte_writer.h"
#include "model/value_json.h"
#include "inspect/inspect.h"
#include "read/work_budget.h"

namespace etpack {
namespace {

// A plan named `name` with `values`, outputs `outputs` (and `inputs`), and
// one chain of `instructions`.
std::string plan(const std::string& name, const std::string& values, const std::string& outputs,
                 const std::string& instructions = "[]", const std::string& inputs = "[]") {
  return R"({"name": ")" + name + R"(", "values": )" + values + R"(, "inputs": )" + inputs + R"(, "outputs": )" + outputs +
         R"(, "chains": [{"inputs": [], "outputs": [], "instructions": )" + instructions +
         R"(}], "operators": [{"name": "aten::add", "overload": "out"}], "delegates": [], "non_const_buffer_sizes": [0]})";
}

Result<Json> inspect_program(const std::string& plans) {
  const std::string text = R"({"version": 0, "execution_plan": [)" + plans +
                           R"(], "constant_buffer": [], "backend_delegate_data": [], "segments": []})";
  ETP_ASSIGN(Json json, parse_json(text));
  ETP_ASSIGN(TableValue program, table_from_json(json, *program_schema().root));
  ETP_ASSIGN(Cord cord, serialize_pte_binary(program, nullptr, nullptr, PteConfig{}));
  ETP_ASSIGN(std::vector<uint8_t> bytes, cord.to_bytes());
  return inspect_pte(Blob::own(std::move(bytes)));
}

TEST(InspectMetadata, ConstantMethodsMapToTheirValuesExactly) {
  const std::string ints = R"([{"val_type": "Int", "val": {"int_val": -9223372036854775808}},
                               {"val_type": "Int", "val": {"int_val": 128}}])";
  const std::string mixed = R"([{"val_type": "Double", "val": {"double_val": 0.1}},
                                {"val_type": "Bool", "val": {"bool_val": true}},
                                {"val_type": "String", "val": {"string_val": "llama"}},
                                {"val_type": "Null", "val": {}},
                                {"val_type": "IntList", "val": {"items": [6, 6]}},
                                {"val_type": "DoubleList", "val": {"items": [-0.0, 1e300]}},
                                {"val_type": "Int", "val": {"int_val": 128}}])";
  const std::string tensor = R"([{"val_type": "Tensor", "val": {"scalar_type": 6, "sizes": [1], "dim_order": [0]}}])";
  const std::string kernel = R"([{"instr_args_type": "KernelCall", "instr_args": {"op_index": 0, "args": [0]}}])";
  auto r = inspect_program(plan("get_min", ints, "[0]") + "," +
                           plan("get_many", mixed, "[0, 1, 2, 3, 4, 5]") + "," +
                           plan("forward", tensor, "[0]") + "," +        // a tensor: not metadata
                           plan("runs", ints, "[1]", kernel) + "," +     // an instruction: not metadata
                           plan("echo", ints, "[1]", "[]", "[1]") + "," + // returns its input
                           plan("__proto__", ints, "[1]"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Json* metadata = r->find("metadata");
  ASSERT_NE(metadata, nullptr);
  EXPECT_EQ(write_json(*metadata),
            R"({"get_min": -9223372036854775808, "get_many": [0.1, true, "llama", null, [128, 128], [-0.0, 1e+300]], "__proto__": 128})");
  // Written before the methods (the model card comes first).
  EXPECT_EQ(r->members()[7].first, "metadata");
  EXPECT_EQ(r->members()[8].first, "methods");
}

// A NaN other than the canonical one keeps its bits, as { nanBits } (the
// form JS shows on every other path: core/nan_bits.h); the canonical one
// stays a NaN.
TEST(InspectMetadata, ANonCanonicalNanKeepsItsBits) {
  const std::string values = R"([{"val_type": "Double", "val": {"double_val": "\u0000Bfff8000000000001"}},
                                 {"val_type": "DoubleList", "val": {"items": ["\u0000B7ff0000000000abc", 1.5]}},
                                 {"val_type": "Double", "val": {"double_val": "\u0000B7ff8000000000000"}}])";
  auto r = inspect_program(plan("nan", values, "[0, 1, 2]"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(write_json(*r->find("metadata")),
            R"({"nan": [{"nanBits": "fff8000000000001"}, [{"nanBits": "7ff0000000000abc"}, 1.5], NaN]})");
}

TEST(InspectMetadata, AProgramWithoutConstantMethodsHasAnEmptyCard) {
  auto r = inspect_program(plan("forward", R"([{"val_type": "Tensor", "val": {"scalar_type": 6, "sizes": [1], "dim_order": [0]}}])", "[0]"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(write_json(*r->find("metadata")), "{}");
}

}  // namespace
}  // namespace etpack
