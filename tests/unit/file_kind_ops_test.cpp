// The file-kind table's ops (ops/file_kind_ops.h): one entry per row of
// format/file_kinds.def, each with what its row says it has.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "format/file_kinds.h"
#include "ops/deserialize.h"
#include "ops/file_kind_ops.h"
#include "ops/inspect.h"

namespace etpack {
namespace {

TEST(FileKindOps, EveryRowHasItsEntry) {
  for (const FileKindInfo& row : kFileKinds) {
    const FileKindOps& ops = ops_of(row.id);
    SCOPED_TRACE(std::string(row.kind));
    EXPECT_NE(ops.head_size, nullptr);
    EXPECT_EQ(ops.inspect != nullptr, row.inspected);
    EXPECT_EQ(ops.validate != nullptr, row.inspected);
  }
}

TEST(FileKindOps, InspectRefusesAKindItDoesNotRead) {
  const std::vector<uint8_t> bytes(16, 0);
  const FileSource file = FileSource::in_memory(Blob::view(bytes.data(), bytes.size()));
  Result<InspectReply> reply = inspect_file(FileKind::kEtdp, file);
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.error().code, ErrorCode::kInvalidArgument);
}

// A .bpte is one flatbuffer, read whole, whatever its first bytes.
TEST(FileKindOps, BundledProgramHeadIsTheWholeFile) {
  const std::vector<uint8_t> probe(8, 0);
  Result<uint64_t> head = head_bytes(FileKind::kBpte, Blob::view(probe.data(), probe.size()), 1 << 20, false);
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(*head, uint64_t{1} << 20);
}

}  // namespace
}  // namespace etpack
