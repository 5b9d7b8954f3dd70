// schema/enums.h (written by cmake/schema_enums.cmake from the .fbs files)
// against flatc's own reading of the same schemas: its generated headers
// (every member, and the last one, so a member added to the schema and
// missed here fails) and the schema model's unions. The JS copy is checked
// against this header by tests/js/schema-enums.test.mjs.
#include <gtest/gtest.h>

#include "bundled_program_generated.h"
#include "model/fb_value.h"
#include "program_generated.h"
#include "schema/enums.h"
#include "schema/schema.h"

namespace etpack {
namespace {

#define SAME(ns, E, member) \
  static_assert(code(E::member) == static_cast<uint64_t>(ns::E##_##member), #E "::" #member " is flatc's")
#define LAST(ns, E, member)  \
  SAME(ns, E, member);       \
  static_assert(ns::E##_MAX == ns::E##_##member, #E "::" #member " is the last member")

SAME(executorch_flatbuffer, TensorShapeDynamism, STATIC);
SAME(executorch_flatbuffer, TensorShapeDynamism, DYNAMIC_BOUND);
LAST(executorch_flatbuffer, TensorShapeDynamism, DYNAMIC_UNBOUND);
SAME(executorch_flatbuffer, TensorDataLocation, CONSTANT_SEGMENT);
LAST(executorch_flatbuffer, TensorDataLocation, EXTERNAL);
SAME(executorch_flatbuffer, DeviceType, CPU);
LAST(executorch_flatbuffer, DeviceType, CUDA);
SAME(executorch_flatbuffer, DataLocation, INLINE);
LAST(executorch_flatbuffer, DataLocation, SEGMENT);
SAME(executorch_flatbuffer, KernelTypes, NONE);
SAME(executorch_flatbuffer, KernelTypes, Null);
SAME(executorch_flatbuffer, KernelTypes, Int);
SAME(executorch_flatbuffer, KernelTypes, Bool);
SAME(executorch_flatbuffer, KernelTypes, Double);
SAME(executorch_flatbuffer, KernelTypes, Tensor);
SAME(executorch_flatbuffer, KernelTypes, String);
SAME(executorch_flatbuffer, KernelTypes, IntList);
SAME(executorch_flatbuffer, KernelTypes, DoubleList);
SAME(executorch_flatbuffer, KernelTypes, BoolList);
SAME(executorch_flatbuffer, KernelTypes, TensorList);
LAST(executorch_flatbuffer, KernelTypes, OptionalTensorList);
SAME(executorch_flatbuffer, InstructionArguments, NONE);
SAME(executorch_flatbuffer, InstructionArguments, KernelCall);
SAME(executorch_flatbuffer, InstructionArguments, DelegateCall);
SAME(executorch_flatbuffer, InstructionArguments, MoveCall);
SAME(executorch_flatbuffer, InstructionArguments, JumpFalseCall);
LAST(executorch_flatbuffer, InstructionArguments, FreeCall);
SAME(bundled_program_flatbuffer, ValueUnion, NONE);
SAME(bundled_program_flatbuffer, ValueUnion, Tensor);
SAME(bundled_program_flatbuffer, ValueUnion, Int);
SAME(bundled_program_flatbuffer, ValueUnion, Bool);
LAST(bundled_program_flatbuffer, ValueUnion, Double);

// The schema model (from the .bfbs) gives each union member the same type
// code as the generated enum.
TEST(SchemaEnums, UnionCodesAreTheSchemaModels) {
  const Schema& program = program_schema();
  const UnionDef* kernel_types = nullptr;
  for (const UnionDef& u : program.unions)
    if (u.name.size() >= 11 && u.name.compare(u.name.size() - 11, 11, "KernelTypes") == 0) kernel_types = &u;
  ASSERT_NE(kernel_types, nullptr);
  EXPECT_EQ(kernel_types->type_of("Tensor"), static_cast<int>(code(KernelTypes::Tensor)));
  EXPECT_EQ(kernel_types->type_of("Null"), static_cast<int>(code(KernelTypes::Null)));
  EXPECT_EQ(kernel_types->type_of("OptionalTensorList"), static_cast<int>(code(KernelTypes::OptionalTensorList)));
  EXPECT_EQ(kernel_types->members.size(), code(KernelTypes::OptionalTensorList) + 1);
}

// TableValue::is compares the whole integer the file holds: 257 is not
// EXTERNAL (1), as a byte-narrowing cast would make it.
TEST(SchemaEnums, IsComparesTheWholeValue) {
  const TableDef* info = program_schema().find_table("ExtraTensorInfo");
  ASSERT_NE(info, nullptr);
  TableValue t(info);
  EXPECT_TRUE(t.is("location", TensorDataLocation::CONSTANT_SEGMENT));  // the default
  t.set("location", TensorDataLocation::EXTERNAL);
  EXPECT_TRUE(t.is("location", TensorDataLocation::EXTERNAL));
  t.set_uint("location", 257);
  EXPECT_FALSE(t.is("location", TensorDataLocation::EXTERNAL));
}

}  // namespace
}  // namespace etpack
