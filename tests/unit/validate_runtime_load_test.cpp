// validate = the runtime's verdict at load_method (issue 23): each check of
// validate_method_load.cpp and the constant placement rule, on a real
// conformance output with one field changed (read back, edited, written
// again by our serializer, or one field patched in the bytes), asserting
// the code, the location and the runtime error named; and inspect's
// requirements.operators. Header fields: validate_header_sizes_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/le_bytes.h"
#include "encode/pte_writer.h"
#include "read/program_tensors.h"
#include "read/pte_reader.h"
#include "read/requirements.h"
#include "validate/validate.h"
#include "unit/test_files.h"
#include "unit/validate_findings.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;
using testing::describe;
using testing::conformance;
using testing::view;
using testing::with_code;
using testing::expect_error;
using testing::load_file;
using testing::read_bytes;

// 02_constants_default: placeholder + 6 constants (12/33/10/1/100/64 bytes,
// tensor alignment 16), planned tensors 0, 1, 3 in buffer 1 (128 bytes),
// value 10 an IntList [4, 5, 2], 11 a TensorList [0, 1], 12 an
// OptionalTensorList [0, -1], 16 and 18 Null, value 2 an Int.
const char* const kBase = "02_constants_default";

std::vector<uint8_t> edited(const char* vector, const std::function<void(TableValue& plan)>& edit,
                            bool extract_delegates = true) {
  auto read = deserialize_pte_binary(load_file(conformance(vector) / "out.pte"));
  EXPECT_TRUE(read.ok()) << (read.ok() ? "" : read.error().message);
  edit(read->program.at("execution_plan").items()[0].table());
  PteConfig config;
  config.extract_delegate_segments = extract_delegates;
  auto cord = serialize_pte_binary(read->program, read->mutable_data ? &*read->mutable_data : nullptr,
                                   read->named_data ? &*read->named_data : nullptr, config);
  EXPECT_TRUE(cord.ok()) << (cord.ok() ? "" : cord.error().message);
  return std::move(cord->to_bytes().value());
}

TableValue& value_at(TableValue& plan, size_t index) { return plan.at("values").items()[index].table(); }
TableValue& val_at(TableValue& plan, size_t index) { return value_at(plan, index).at("val").table(); }

template <typename T>
Value scalars(const std::vector<T>& items) {
  std::vector<uint8_t> raw(items.size() * sizeof(T));
  for (size_t i = 0; i < items.size(); ++i) write_le<T>(&raw[i * sizeof(T)], items[i]);
  return Value::from_scalars(Blob::own(std::move(raw)));
}

TEST(ValidateRuntimeLoad, BaseIsCleanAndRewritesByteForByte) {
  std::vector<uint8_t> bytes = edited(kBase, [](TableValue&) {});
  EXPECT_EQ(bytes, read_bytes(conformance(kBase) / "out.pte"));
  ValidationReport r = validate_artifacts(view(bytes), {});
  EXPECT_TRUE(r.ok() && r.warnings.empty()) << describe(r);
}

TEST(ValidateRuntimeLoad, PlannedTensorPastItsBuffer) {
  // Value 3 (f32[2, 3], 24 bytes) moved from offset 64 to 112: 136 > 128.
  auto bytes = edited(kBase, [](TableValue& plan) {
    val_at(plan, 3).at("allocation_info").table().at("memory_offset_low") = Value::from_uint(112);
  });
  ValidationReport r = validate_artifacts(view(bytes), {});
  expect_error(r, finding::kPlannedTensorPastBuffer, "execution_plan[0].values[3].val.allocation_info",
               "MemoryAllocationFailed when load_method('forward') (execution_plan[0]) plans value 3");
  // A smaller buffer: 112 bytes hold values 0, 1, 3 (bytes 0..88), not value 17 (f16[1, 3, 2, 2] at 96..120).
  bytes = edited(kBase, [](TableValue& plan) { plan.at("non_const_buffer_sizes") = scalars<int64_t>({0, 112}); });
  r = validate_artifacts(view(bytes), {});
  expect_error(r, finding::kPlannedTensorPastBuffer, "execution_plan[0].values[17].val.allocation_info",
               "needs 24 bytes at offset 96 of planned buffer 1, which has 112");
  // At 120 bytes every planned tensor fits.
  bytes = edited(kBase, [](TableValue& plan) { plan.at("non_const_buffer_sizes") = scalars<int64_t>({0, 120}); });
  EXPECT_TRUE(validate_artifacts(view(bytes), {}).ok());
  // A wider dtype: value 17 as f64 needs 96 bytes at 96.
  bytes = edited(kBase, [](TableValue& plan) { val_at(plan, 17).at("scalar_type") = Value::from_int(7); });
  r = validate_artifacts(view(bytes), {});
  expect_error(r, finding::kPlannedTensorPastBuffer, "execution_plan[0].values[17].val.allocation_info",
               "needs 96 bytes at offset 96 of planned buffer 1, which has 128");
}

TEST(ValidateRuntimeLoad, PlannedOffsetPlusBytesOverflows) {
  auto bytes = edited(kBase, [](TableValue& plan) {
    TableValue& info = val_at(plan, 1).at("allocation_info").table();
    info.at("memory_offset_low") = Value::from_uint(0xFFFFFFF0u);
    info.at("memory_offset_high") = Value::from_uint(0xFFFFFFFFu);
  });
  ValidationReport r = validate_artifacts(view(bytes), {});
  expect_error(r, finding::kPlannedTensorPastBuffer, "execution_plan[0].values[1].val.allocation_info",
               "InvalidArgument when load_method('forward') (execution_plan[0]) plans value 1");
}

TEST(ValidateRuntimeLoad, MemoryIdZeroOrPastTheBuffers) {
  for (uint64_t id : {0u, 2u}) {
    auto bytes = edited(kBase, [&](TableValue& plan) {
      val_at(plan, 0).at("allocation_info").table().at("memory_id") = Value::from_uint(id);
    });
    ValidationReport r = validate_artifacts(view(bytes), {});
    expect_error(r, finding::kPlannedMemoryIdInvalid, "execution_plan[0].values[0].val.allocation_info.memory_id",
                 "InvalidArgument when load_method('forward') (execution_plan[0]) plans value 0");
  }
  // A buffer size dropped: every planned tensor names a buffer that is gone.
  auto bytes = edited(kBase, [](TableValue& plan) { plan.at("non_const_buffer_sizes") = scalars<int64_t>({0}); });
  ValidationReport r = validate_artifacts(view(bytes), {});
  EXPECT_EQ(with_code(r.errors, finding::kPlannedMemoryIdInvalid).size(), 4u) << describe(r);  // values 0, 1, 3, 17
}

TEST(ValidateRuntimeLoad, NegativePlannedBufferSize) {
  auto bytes = edited(kBase, [](TableValue& plan) { plan.at("non_const_buffer_sizes") = scalars<int64_t>({0, -128}); });
  ValidationReport r = validate_artifacts(view(bytes), {});
  expect_error(r, finding::kPlannedBufferSizeNegative, "execution_plan[0].non_const_buffer_sizes[1]",
               "InvalidProgram when load_method('forward') (execution_plan[0]) asks for planned buffer 0");
  EXPECT_TRUE(with_code(r.errors, finding::kPlannedTensorPastBuffer).empty()) << describe(r);
  // Entry 0 is reserved and never read.
  bytes = edited(kBase, [](TableValue& plan) { plan.at("non_const_buffer_sizes") = scalars<int64_t>({-1, 128}); });
  EXPECT_TRUE(validate_artifacts(view(bytes), {}).ok());
}

TEST(ValidateRuntimeLoad, IntListItemOutsideTheValues) {
  auto bytes = edited(kBase, [](TableValue& plan) { val_at(plan, 10).at("items") = scalars<int64_t>({4, 25, 2}); });
  ValidationReport r = validate_artifacts(view(bytes), {});
  expect_error(r, finding::kIntListItemInvalid, "execution_plan[0].values[10].val.items[1]",
               "InvalidProgram when load_method('forward') (execution_plan[0]) parses value 10 (IntList)");
}

TEST(ValidateRuntimeLoad, TensorListItems) {
  // Out of range: InvalidProgram; an Int: InvalidType; a later value: not yet parsed.
  const std::vector<std::pair<int32_t, std::string>> cases = {
      {-1, "InvalidProgram"}, {25, "InvalidProgram"}, {2, "InvalidType"}, {17, "not parsed yet"}};
  for (const auto& c : cases) {
    const int32_t item = c.first;  // C++17 lambdas cannot capture a structured binding
    const std::string& error = c.second;
    auto bytes = edited(kBase, [&](TableValue& plan) { val_at(plan, 11).at("items") = scalars<int32_t>({0, item}); });
    ValidationReport r = validate_artifacts(view(bytes), {});
    expect_error(r, finding::kTensorListItemInvalid, "execution_plan[0].values[11].val.items[1]",
                 error == "not parsed yet" ? "has not parsed yet" : error);
  }
}

TEST(ValidateRuntimeLoad, OptionalTensorListItems) {
  const std::vector<std::pair<int32_t, std::string>> cases = {
      {-2, "InvalidProgram"}, {42, "InvalidProgram"}, {2, "InvalidType"}, {15, "InvalidType"}};
  for (const auto& c : cases) {
    const int32_t item = c.first;  // C++17 lambdas cannot capture a structured binding
    const std::string& error = c.second;
    auto bytes = edited(kBase, [&](TableValue& plan) { val_at(plan, 12).at("items") = scalars<int32_t>({item, -1}); });
    ValidationReport r = validate_artifacts(view(bytes), {});
    expect_error(r, finding::kOptionalTensorListItemInvalid, "execution_plan[0].values[12].val.items[0]", error);
  }
  // -1 and an earlier Null value are allowed.
  auto bytes = edited(kBase, [](TableValue& plan) { val_at(plan, 12).at("items") = scalars<int32_t>({-1, 1}); });
  EXPECT_TRUE(validate_artifacts(view(bytes), {}).ok());
}

TEST(ValidateRuntimeLoad, DynamicUnboundShape) {
  auto bytes = edited(kBase, [](TableValue& plan) { val_at(plan, 1).at("shape_dynamism") = Value::from_int(2); });
  ValidationReport r = validate_artifacts(view(bytes), {});
  expect_error(r, finding::kTensorDynamismUnsupported, "execution_plan[0].values[1].val.shape_dynamism",
               "NotSupported when load_method('forward') (execution_plan[0]) parses value 1");
  bytes = edited(kBase, [](TableValue& plan) { val_at(plan, 1).at("shape_dynamism") = Value::from_int(1); });
  EXPECT_TRUE(validate_artifacts(view(bytes), {}).ok());  // DYNAMIC_BOUND loads
}

TEST(ValidateRuntimeLoad, StrideOverflowsInt32) {
  // Value 17: f16[1, 3, 2, 2], dim_order [0, 2, 3, 1] (channels last). Its
  // strides multiply the sizes of dims 2, 3, 1: 2^16 * 2^16 overflows.
  auto bytes = edited(kBase, [](TableValue& plan) { val_at(plan, 17).at("sizes") = scalars<int32_t>({1, 3, 65536, 65536}); });
  ValidationReport r = validate_artifacts(view(bytes), {});
  expect_error(r, finding::kTensorSizesOverflow, "execution_plan[0].values[17].val.sizes", "signed overflow");
  // A large leading dim (dim_order[0]) has no stride of its own: no overflow there.
  bytes = edited(kBase, [](TableValue& plan) { val_at(plan, 17).at("sizes") = scalars<int32_t>({1 << 30, 3, 2, 2}); });
  r = validate_artifacts(view(bytes), {});
  EXPECT_TRUE(with_code(r.errors, finding::kTensorSizesOverflow).empty()) << describe(r);
}

TEST(ValidateRuntimeLoad, ValueWithoutItsValue) {
  // The union type stays (Int, Tensor), its table is gone; a Null without a table loads.
  for (size_t index : {2u, 1u}) {
    auto bytes = edited(kBase, [&](TableValue& plan) { value_at(plan, index).at("val") = Value(); });
    ValidationReport r = validate_artifacts(view(bytes), {});
    expect_error(r, finding::kValueNull, "execution_plan[0].values[" + std::to_string(index) + "].val",
                 "InvalidProgram when load_method('forward') (execution_plan[0]) parses value " + std::to_string(index));
  }
  auto bytes = edited(kBase, [](TableValue& plan) { value_at(plan, 16).at("val") = Value(); });
  EXPECT_TRUE(with_code(validate_artifacts(view(bytes), {}).errors, finding::kValueNull).empty());
}

TEST(ValidateRuntimeLoad, UnknownKernelType) {
  // Value 2's union type patched to 12 (past OptionalTensorList) in the bytes.
  std::vector<uint8_t> bytes = edited(kBase, [](TableValue& plan) { value_at(plan, 2).at("val") = Value(); });
  ValidationReport before = validate_artifacts(view(bytes), {});
  auto read = read_pte_program(view(bytes));
  ASSERT_TRUE(read.ok());
  // The EValue table of value 2 holds only its type byte (2 = Int): find it
  // after the vtable by patching every candidate and keeping the one that changes the verdict.
  bool patched = false;
  for (size_t at = 0; at + 1 < bytes.size() && !patched; ++at) {
    if (bytes[at] != 2) continue;
    std::vector<uint8_t> copy = bytes;
    copy[at] = 12;
    ValidationReport r = validate_artifacts(view(copy), {});
    auto found = with_code(r.errors, finding::kValueNull);
    if (found.size() == 1 && found[0]->message.find("unknown KernelTypes value 12") != std::string::npos) {
      EXPECT_EQ(found[0]->path, "execution_plan[0].values[2].val");
      patched = true;
    }
  }
  EXPECT_TRUE(patched) << describe(before);
}

TEST(ValidateRuntimeLoad, SegmentDelegateWithoutSegments) {
  // 07: one INLINE delegate; with the placeholder constant buffer (taken
  // from 02) its only segment is empty, so it has no eh00 header and loads.
  auto from02 = deserialize_pte_binary(load_file(conformance(kBase) / "out.pte"));
  ASSERT_TRUE(from02.ok());
  Value placeholder = from02->program.get("constant_buffer");
  placeholder.items().resize(1);
  auto with_location = [&](uint64_t location) {
    auto read = deserialize_pte_binary(load_file(conformance("07_delegate_align256_inline") / "out.pte"));
    EXPECT_TRUE(read.ok());
    read->program.at("constant_buffer") = placeholder;
    TableValue& plan = read->program.at("execution_plan").items()[0].table();
    plan.at("delegates").items()[0].table().at("processed").table().at("location") = Value::from_uint(location);
    auto cord = serialize_pte_binary(read->program, nullptr, nullptr, PteConfig{});
    EXPECT_TRUE(cord.ok());
    return std::move(cord->to_bytes().value());
  };
  std::vector<uint8_t> base = with_location(0);
  ASSERT_NE(read_le<uint32_t>(&base[8]), 0x30306865u);  // no "eh00"
  ValidationReport clean = validate_artifacts(view(base), {});
  EXPECT_TRUE(clean.ok() && clean.warnings.empty()) << describe(clean);
  std::vector<uint8_t> bytes = with_location(1);
  ValidationReport r = validate_artifacts(view(bytes), {});
  expect_error(r, finding::kDelegateSegmentWithoutSegments, "execution_plan[0].delegates[0].processed.location",
               "NotFound");
}

// Patches constant_segment.offsets[index] of `file` in place.
void patch_constant_offset(std::vector<uint8_t>& file, size_t index, uint64_t value) {
  auto read = read_pte_program(view(file));
  ASSERT_TRUE(read.ok());
  const Value& offsets = read->program.get("constant_segment").table().get("offsets");
  auto at = offset_in_file(offsets.scalars(), view(file));
  ASSERT_TRUE(at.has_value());
  write_le<uint64_t>(&file[*at + 8 * index], value);
}

TEST(ValidateRuntimeLoad, ConstantOffsetMoved) {
  // Offsets [0, 0, 16, 64, 80, 96, 208]; paddings 4, 15, 6, 15, 12: alignment >= 16.
  const std::vector<uint8_t> file = read_bytes(conformance(kBase) / "out.pte");
  // Constant 1 moved by 4 onto the placeholder's (empty) slice: its first
  // 4 bytes would be skipped and 4 padding bytes read instead.
  std::vector<uint8_t> moved = file;
  patch_constant_offset(moved, 1, 4);
  ValidationReport r = validate_artifacts(view(moved), {});
  expect_error(r, finding::kConstantOffsetMoved, "constant_segment.offsets[1]", "other bytes");
  // Constant 3 (10 bytes at 64) moved forward by 4 into its own padding.
  moved = file;
  patch_constant_offset(moved, 3, 68);
  r = validate_artifacts(view(moved), {});
  expect_error(r, finding::kConstantOffsetMoved, "constant_segment.offsets[3]", "= 68 is not a multiple of 32");
  // Every conformance output and artifact: no false alarm.
  for (const fs::path& root : {fs::path(ETPACK_CONFORMANCE_DIR), fs::path(ETPACK_ARTIFACTS_DIR)})
    for (const auto& e : fs::recursive_directory_iterator(root))
      if (e.path().extension() == ".pte") {
        EXPECT_TRUE(with_code(validate_artifacts(load_file(e.path()), {}).errors, finding::kConstantOffsetMoved).empty())
            << e.path();
      }
}

}  // namespace
}  // namespace etpack

// --- requirements.operators: only what instructions call ------------------

namespace etpack {
namespace {

Requirements requirements_of(const std::vector<uint8_t>& bytes) {
  auto read = read_pte_program(view(bytes));
  EXPECT_TRUE(read.ok());
  return pte_requirements(view(bytes), *read);
}

TEST(RequirementsOperators, UncalledTableEntriesAreListedApart) {
  const Requirements before = requirements_of(read_bytes(conformance(kBase) / "out.pte"));
  ASSERT_FALSE(before.operators.empty());
  EXPECT_TRUE(before.unused_operators.empty());
  // An operator table entry no KernelCall names (as custom::ops_ü in a held-back file).
  auto bytes = edited(kBase, [](TableValue& plan) {
    Value& ops = plan.at("operators");
    TableValue entry = ops.items()[0].table();
    entry.at("name") = Value::from_string("custom::ops_\xc3\xbc");
    entry.at("overload") = Value::from_string("out");
    ops.items().push_back(Value::from_table(std::move(entry)));
  });
  Requirements r = requirements_of(bytes);
  EXPECT_EQ(r.operators, before.operators);
  EXPECT_EQ(r.unused_operators, std::vector<std::string>{"custom::ops_\xc3\xbc.out"});
  Json json = requirements_json(r);
  ASSERT_NE(json.find("unusedOperators"), nullptr);
  EXPECT_EQ(write_json(*json.find("unusedOperators")), "[\"custom::ops_\xc3\xbc.out\"]");
  // The first KernelCall redirected to the second operator: the first is no longer called.
  bytes = edited(kBase, [](TableValue& plan) {
    TableValue& call = plan.at("chains").items()[0].table().at("instructions").items()[0].table().at("instr_args").table();
    ASSERT_EQ(call.def->name, "KernelCall");
    call.at("op_index") = Value::from_int(1);
  });
  r = requirements_of(bytes);
  ASSERT_EQ(r.unused_operators.size(), 1u);
  EXPECT_EQ(r.unused_operators[0], before.operators[0]);
  EXPECT_EQ(std::vector<std::string>(before.operators.begin() + 1, before.operators.end()), r.operators);
}

}  // namespace
}  // namespace etpack
