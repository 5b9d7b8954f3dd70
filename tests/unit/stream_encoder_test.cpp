// Serialize's fast route (encode/stream_encoder.h): the execution plans
// encoded straight from the value stream, the rest of the program read into
// the model, must give the very bytes of the model route, or say no. Every
// conformance program takes it; programs whose unions change member, come
// type first or value first, or hold what the route leaves to the model
// (duplicates, -0 for an integer, a union type without its value) give the
// model route's bytes either way; BigInt digits, NaN bits and upstream's
// "inf" take the fast route to the same bytes.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "encode/pte_writer.h"
#include "encode/stream_encoder.h"
#include "model/stream_table.h"
#include "ops/program_for_pte.h"
#include "schema/schema.h"
#include "test_files.h"
#include "unit/stream_builder.h"

namespace etpack {
namespace {

using testing::stream_of;

std::vector<uint8_t> bytes_of(const Cord& cord) {
  std::vector<uint8_t> out;
  for (const Cord::Piece& p : cord.pieces()) {
    if (p.kind == Cord::Piece::Kind::kZeros) out.insert(out.end(), static_cast<size_t>(p.zeros), 0);
    else out.insert(out.end(), p.bytes.data(), p.bytes.data() + p.bytes.size());
  }
  return out;
}

// The model route: the whole program read, then written.
std::optional<std::vector<uint8_t>> model_route(const std::string& stream, const PteConfig& config = {}) {
  auto program = table_from_value_stream(stream, *program_schema().root);
  if (!program.ok()) return std::nullopt;
  auto pte = serialize_pte_binary(*program, nullptr, nullptr, config);
  if (!pte.ok()) return std::nullopt;
  return bytes_of(*pte);
}

// The fast route, as the bindings take it (ops/program_for_pte.h); nullopt
// where it says no (with delegate extraction: plans holding a delegate).
std::optional<std::vector<uint8_t>> fast_route(const std::string& stream, const PteConfig& config = {}) {
  std::optional<StreamPrefix> plans;
  auto program = program_stream_for_pte(stream, nullptr, config.extract_delegate_segments, false, plans);
  if (!plans) return std::nullopt;
  EXPECT_TRUE(program.ok()) << (program.ok() ? "" : program.error().message);
  if (!program.ok()) return std::nullopt;
  EXPECT_FALSE(program->has("execution_plan"));
  auto pte = serialize_pte_binary(*program, nullptr, nullptr, config, &plans->encoded);
  EXPECT_TRUE(pte.ok()) << (pte.ok() ? "" : pte.error().message);
  if (!pte.ok()) return std::nullopt;
  return bytes_of(*pte);
}

std::string program_with_values(const std::string& values) {
  return R"({"version": 0, "execution_plan": [{"name": "forward", "values": [)" + values +
         R"(], "inputs": [0], "outputs": [0], "chains": [{"inputs": [], "outputs": [], "instructions": [)"
         R"({"instr_args": {"op_index": 0, "args": [0, 1]}, "instr_args_type": "KernelCall"},)"
         R"({"instr_args_type": "JumpFalseCall", "instr_args": {"cond_value_index": 1, "destination_instruction": 0}}]}],)"
         R"( "operators": [{"name": "aten::add", "overload": "out"}], "delegates": [], "non_const_buffer_sizes": [0, 64]}],)"
         R"( "constant_buffer": [{"storage": []}], "backend_delegate_data": [], "segments": []})";
}

TEST(StreamEncoder, EveryConformanceProgramGivesTheModelRoutesBytes) {
  size_t fast = 0;
  size_t fast_extracted = 0;  // those without delegates
  size_t with_segments = 0;
  size_t checked = 0;
  for (const auto& [path, text] : testing::conformance_programs()) {
    const std::string stream = stream_of(text);
    auto model = model_route(stream);
    ASSERT_TRUE(model.has_value()) << path;
    auto direct = fast_route(stream);
    if (direct) {
      EXPECT_EQ(*direct, *model) << path;
      ++fast;
    }
    // Programs listing segments (deserialized ones) take the model route.
    auto program = table_from_value_stream(stream, *program_schema().root);  // kept: `segments` refers into it
    ASSERT_TRUE(program.ok()) << path;
    const Value& segments = program->get("segments");
    if (segments.is_items() && !segments.items().empty()) ++with_segments;
    // serializeForExecutorch's default: delegates extracted to segments.
    PteConfig extract;
    extract.extract_delegate_segments = true;
    auto model_extracted = model_route(stream, extract);
    auto direct_extracted = fast_route(stream, extract);
    if (direct_extracted) {
      ASSERT_TRUE(model_extracted.has_value()) << path;
      EXPECT_EQ(*direct_extracted, *model_extracted) << path;
      ++fast_extracted;
    }
    ++checked;
  }
  EXPECT_GE(checked, 38u);
  EXPECT_EQ(fast + with_segments, checked) << "conformance programs the fast route declined";
  EXPECT_GE(fast_extracted, 20u) << "conformance programs without delegates";
}

TEST(StreamEncoder, UnionsChangingMemberAndOrderGiveTheSameBytes) {
  const std::string values =
      R"({"val": {"int_val": 5}, "val_type": "Int"}, {"val": {"items": [1, 2]}, "val_type": "IntList"},)"
      R"({"val": {"items": [1, 2]}, "val_type": "DoubleList"}, {"val": {"items": [true, false]}, "val_type": "BoolList"},)"
      R"({"val_type": "Double", "val": {"double_val": 2.5}}, {"val": {"double_val": 7}, "val_type": 4},)"
      R"({"val": {"string_val": "x\u00e9"}, "val_type": "String"}, {"val": {"bool_val": true}, "val_type": "Bool"},)"
      R"({"val": {"scalar_type": 6, "sizes": [2, 3], "dim_order": [0, 1], "requires_grad": false, "data_buffer_idx": 0,)"
      R"( "allocation_info": {"memory_id": 1, "memory_offset_low": 4294967295, "memory_offset_high": 0}, "extra_tensor_info": null},)"
      R"( "val_type": "Tensor"}, {"val_type": "Null", "val": {}}, {"val": {"int_val": -9007199254740991}, "val_type": "Int"},)"
      R"({"val": {"int_val": 9007199254740993}, "val_type": "Int"}, {"val": {"double_val": "-inf"}, "val_type": "Double"},)"
      R"({"val": {"double_val": "\u0000B7ff4000000000abc"}, "val_type": "Double"}, {"val": {"double_val": -0.0}, "val_type": "Double"})";
  const std::string stream = stream_of(program_with_values(values));
  auto model = model_route(stream);
  ASSERT_TRUE(model.has_value());
  auto direct = fast_route(stream);
  ASSERT_TRUE(direct.has_value()) << "the fast route declined";
  EXPECT_EQ(*direct, *model);
}

TEST(StreamEncoder, WhatItLeavesToTheModelRouteIsDeclined) {
  for (const std::string values : {
           R"({"val": {"int_val": 1, "int_val": 2}, "val_type": "Int"})",            // a key twice: the reader keeps the last
           R"({"val": {"int_val": -0.0}, "val_type": "Int"})",                        // -0 for an integer
           R"({"val_type": "Int", "val": null})",                                     // a type without its value
           R"({"val": {"items": [1]}, "val_type": "IntList", "val_type": "IntList"})",  // the type twice
       }) {
    const std::string stream = stream_of(program_with_values(values));
    EXPECT_FALSE(fast_route(stream).has_value()) << values;
  }
  // Out of declaration order (values after chains): declined, and the
  // model route still writes it.
  const std::string text = R"({"version": 0, "execution_plan": [{"name": "f", "chains": [], "values": []}], "segments": []})";
  EXPECT_FALSE(fast_route(stream_of(text)).has_value());
  EXPECT_TRUE(model_route(stream_of(text)).has_value());
  // Errors are the model route's: the fast route says no.
  EXPECT_FALSE(fast_route(stream_of(program_with_values(R"({"val": {"int_val": 5}, "val_type": "Nope"})"))).has_value());
  EXPECT_FALSE(fast_route(stream_of(program_with_values(R"({"val": {"int_val": 300}, "val_type": "Int", "x": 1})"))).has_value());
}

}  // namespace
}  // namespace etpack
