// decode_flatbuffer on hand-made bytes: every bound it checks, the limits
// on depth and on expansion through shared sub-objects, and the byte offsets
// its errors name.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "read/fb_bytes.h"
#include "read/fb_decoder.h"
#include "schema/schema.h"
#include "unit/flatbuffer_bytes.h"
#include "unit/test_files.h"

namespace etpack {
namespace {

using testing::FlatbufferBytes;

const TableDef& def(const char* name) { return *program_schema().find_table(name); }

// Fails the test unless decoding fails with `code` and a message containing `text`.
void expect_error(const Result<TableValue>& r, ErrorCode code, const std::string& text) {
  ASSERT_FALSE(r.ok()) << "decoded, expected: " << text;
  EXPECT_EQ(r.error().code, code) << r.error().message;
  EXPECT_NE(r.error().message.find(text), std::string::npos) << r.error().message;
}

// An Operator table {name: string, overload: string} with its name at the end.
struct OperatorBytes {
  FlatbufferBytes fb;
  size_t name_field = 0, name = 0;
  explicit OperatorBytes(const std::string& text) {
    size_t vt = fb.vtable(8, {4});
    size_t table = fb.table(vt);
    name_field = fb.u32(0);
    name = fb.u32(static_cast<uint32_t>(text.size()));
    for (char c : text) fb.u8(static_cast<uint8_t>(c));
    fb.u8(0);
    fb.point(name_field, name);
    fb.root(table);
  }
};

TEST(FbDecoder, DecodesARealProgramWithoutCopyingVectors) {
  std::vector<uint8_t> file = testing::read_bytes(std::filesystem::path(ETPACK_ARTIFACTS_DIR) / "arduino_add.pte");
  ASSERT_EQ(file.size(), 1156u);
  Blob flatbuffer = Blob::view(file.data(), 1040);
  auto r = decode_flatbuffer(flatbuffer, *program_schema().root);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const TableValue& plan = r->get("execution_plan").items()[0].table();
  EXPECT_EQ(plan.get("name").str(), "forward");
  const Value& inputs = plan.get("inputs");
  ASSERT_TRUE(inputs.is_scalars());
  EXPECT_GE(inputs.scalars().data(), file.data());
  EXPECT_LE(inputs.scalars().data() + inputs.scalars().size(), file.data() + 1040);
}

TEST(FbDecoder, HandMadeTableDecodes) {
  OperatorBytes op("aten::add");
  auto r = decode_flatbuffer(op.fb.blob(), def("Operator"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->get("name").str(), "aten::add");
  EXPECT_TRUE(r->get("overload").absent());
}

TEST(FbDecoder, BufferShorterThanItsPreamble) {
  std::vector<uint8_t> bytes = {4, 0, 0, 0, 'E', 'T', '1'};
  expect_error(decode_flatbuffer(Blob::view(bytes.data(), bytes.size()), *program_schema().root),
               ErrorCode::kMalformedFile, "smaller than its 8-byte preamble");
}

TEST(FbDecoder, RootOffsetPastTheEnd) {
  OperatorBytes op("x");
  op.fb.set_u32(0, 0xFFFFFFFC);
  expect_error(decode_flatbuffer(op.fb.blob(), def("Operator")), ErrorCode::kMalformedFile,
               "offset points past the end of the flatbuffer (at byte offset 0)");
}

TEST(FbDecoder, ErrorsNameOffsetsInTheFile) {
  OperatorBytes op("x");
  op.fb.set_u32(0, 0xFFFFFFFC);
  expect_error(decode_flatbuffer(op.fb.blob(), def("Operator"), 1000), ErrorCode::kMalformedFile, "byte offset 1000");
}

TEST(FbDecoder, MisalignedTable) {
  OperatorBytes op("x");
  op.fb.set_u32(0, 13);
  expect_error(decode_flatbuffer(op.fb.blob(), def("Operator")), ErrorCode::kMalformedFile, "not 4-byte aligned");
}

TEST(FbDecoder, VtableBeforeTheBuffer) {
  FlatbufferBytes fb;
  fb.align(4);
  size_t table = fb.u32(0x7FFFFFF0);  // soffset: vtable far before byte 0
  fb.u32(0);
  fb.root(table);
  expect_error(decode_flatbuffer(fb.blob(), def("Operator")), ErrorCode::kMalformedFile, "vtable offset out of range");
}

TEST(FbDecoder, VtableSizes) {
  // As flatbuffers::Verifier::VerifyTableStart: an even size inside the
  // buffer; 0 and 2 hold no field (all read as absent).
  for (uint16_t empty : {0, 2}) {
    OperatorBytes op("x");
    op.fb.bytes[8] = static_cast<uint8_t>(empty);
    op.fb.bytes[9] = 0;
    auto r = decode_flatbuffer(op.fb.blob(), def("Operator"));
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_FALSE(r->has("name"));
  }
  for (uint16_t bad : {5, 0xFFFE}) {
    OperatorBytes op("x");
    op.fb.bytes[8] = static_cast<uint8_t>(bad);
    op.fb.bytes[9] = static_cast<uint8_t>(bad >> 8);
    expect_error(decode_flatbuffer(op.fb.blob(), def("Operator")), ErrorCode::kMalformedFile, "vtable size");
  }
  // The table's inline size is read by neither the verifier nor any accessor.
  OperatorBytes op("x");
  op.fb.bytes[10] = 0xFF;  // object size 255: past the end
  auto r = decode_flatbuffer(op.fb.blob(), def("Operator"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->get("name").str(), "x");
}

TEST(FbDecoder, FieldOutsideTheBuffer) {
  OperatorBytes op("x");
  op.fb.bytes[12] = 0xF0;  // name at table + 0x00F0
  expect_error(decode_flatbuffer(op.fb.blob(), def("Operator")), ErrorCode::kMalformedFile,
               "Operator.name lies outside the flatbuffer");
}

TEST(FbDecoder, StringLengths) {
  for (uint32_t length : {0xFFFFFFFFu, 0x80000000u, 2u /* no room for the terminator */}) {
    OperatorBytes op("x");
    op.fb.set_u32(op.name, length);
    expect_error(decode_flatbuffer(op.fb.blob(), def("Operator")), ErrorCode::kMalformedFile, "runs past the end");
  }
}

TEST(FbDecoder, VectorCountsNear2To32) {
  for (uint32_t count : {0xFFFFFFFFu, 0x40000000u, 0x20000000u, 3u}) {
    FlatbufferBytes fb;
    size_t vt = fb.vtable(8, {4});
    size_t table = fb.table(vt);
    size_t field = fb.u32(0);
    size_t vec = fb.u32(count);
    fb.u64(7);
    fb.point(field, vec);
    fb.root(table);
    expect_error(decode_flatbuffer(fb.blob(), def("IntList")), ErrorCode::kMalformedFile,
                 "vector of " + std::to_string(count) + " elements runs past the end");
  }
}

TEST(FbDecoder, ChildOffsetPointingAtItself) {
  // Program.execution_plan = [offset 0]: the element "table" is the offset itself.
  FlatbufferBytes fb;
  size_t vt = fb.vtable(8, {0, 4});
  size_t program = fb.table(vt);
  size_t field = fb.u32(0);
  size_t vec = fb.u32(1);
  size_t element = fb.u32(0);
  fb.point(field, vec);
  fb.root(program);
  auto r = decode_flatbuffer(fb.blob(), *program_schema().root);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kMalformedFile);
  EXPECT_NE(r.error().message.find("offset 0 points at itself"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("byte offset " + std::to_string(element)), std::string::npos) << r.error().message;
}

TEST(FbDecoder, RootPointingAtTheRootOffset) {
  std::vector<uint8_t> bytes = {0, 0, 0, 0, 'E', 'T', '1', '2', 0, 0, 0, 0};
  expect_error(decode_flatbuffer(Blob::view(bytes.data(), bytes.size()), *program_schema().root),
               ErrorCode::kMalformedFile, "offset 0 points at itself");
}

TEST(FbDecoder, UnionTypeThatIsNoMember) {
  FlatbufferBytes fb;
  size_t vt = fb.vtable(12, {4, 8});
  size_t table = fb.table(vt);
  fb.u8(200);  // val_type
  fb.align(4);
  size_t val = fb.u32(0);
  size_t child_vt = fb.vtable(4, {});
  size_t child = fb.table(child_vt);
  fb.point(val, child);
  fb.root(table);
  expect_error(decode_flatbuffer(fb.blob(), def("EValue")), ErrorCode::kMalformedFile,
               "EValue.val_type 200 is not a member of KernelTypes");
}

TEST(FbDecoder, DepthLimit) {
  std::vector<uint8_t> file = testing::read_bytes(std::filesystem::path(ETPACK_ARTIFACTS_DIR) / "arduino_add.pte");
  DecodeLimits limits;
  limits.max_depth = 2;
  expect_error(decode_flatbuffer(Blob::view(file.data(), 1040), *program_schema().root, 0, limits),
               ErrorCode::kLimitExceeded, "nesting deeper than 2");
}

TEST(FbDecoder, SharedTablesDecodeWhileSmall) {
  FlatbufferBytes fb = testing::program_with_shared_plans(3, 4);
  auto r = decode_flatbuffer(fb.blob(), *program_schema().root);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->get("execution_plan").items().size(), 3u);
  EXPECT_EQ(r->get("execution_plan").items()[2].table().get("values").items().size(), 4u);
}

TEST(FbDecoder, SharedTablesCannotExpandWithoutBound) {
  FlatbufferBytes fb = testing::program_with_shared_plans(1000, 1000);  // ~8 KB claiming a million tables
  expect_error(decode_flatbuffer(fb.blob(), *program_schema().root), ErrorCode::kResourceLimit,
               "memory budget exceeded at byte offset");
}

// A vector whose elements cannot all fit the budget is refused at the
// vector itself, before its slots are allocated, not element by element.
TEST(FbDecoder, VectorTooBigForItsElementsIsRefusedBeforeAllocating) {
  FlatbufferBytes fb = testing::program_with_shared_plans(1, 8000);
  // Where the values vector lies: root -> Program.execution_plan[0] -> .values.
  const Blob blob = fb.blob();
  FbBytes bytes(blob.data(), blob.size(), 0);
  const Schema& schema = program_schema();
  auto field_target = [&](uint64_t table_pos, const TableDef& def, const char* name) {
    FbTable t = bytes.table(table_pos, def).value();
    return bytes.follow(bytes.field(t, def, *def.find(name)).value()).value();
  };
  const uint64_t plans = field_target(bytes.follow(0).value(), *schema.root, "execution_plan");
  const uint64_t plan = bytes.follow(plans + 4).value();
  const uint64_t values = field_target(plan, *schema.find_table("ExecutionPlan"), "values");
  DecodeLimits limits;
  limits.memory_factor = 0;
  limits.memory_allowance = 1 << 20;  // the 8000 slots fit; 8000 EValue tables do not
  expect_error(decode_flatbuffer(blob, *schema.root, 0, limits), ErrorCode::kResourceLimit,
               "memory budget exceeded at byte offset " + std::to_string(values));
}

}  // namespace
}  // namespace etpack
