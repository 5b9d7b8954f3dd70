// The file-kind table (format/file_kinds.def) against the schemas and the
// headers it describes, and the one identifier check every reader uses.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "format/file_kinds.h"
#include "format/headers.h"
#include "schema/schema.h"

namespace etpack {
namespace {

std::vector<uint8_t> with_identifier(const char* id) {
  std::vector<uint8_t> bytes = {0x10, 0, 0, 0, 0, 0, 0, 0, 0xaa};
  std::memcpy(bytes.data() + 4, id, 4);
  return bytes;
}

TEST(FileKinds, IdentifiersAreTheSchemasOwn) {
  EXPECT_EQ(identifier_of(FileKind::kPte), program_schema().file_identifier);
  EXPECT_EQ(identifier_of(FileKind::kPtd), flat_tensor_schema().file_identifier);
  EXPECT_EQ(identifier_of(FileKind::kBpte), bundled_program_schema().file_identifier);
}

TEST(FileKinds, RowsDescribeTheHeaders) {
  for (const FileKindInfo& k : kFileKinds) {
    EXPECT_EQ(k.identifier.size(), 4u) << k.kind;
    EXPECT_EQ(file_kind(k.id).kind, k.kind);
    EXPECT_EQ(file_kind_named(k.kind), k.id);
    if (k.header_magic.empty()) {  // no extended header (.bpte, .etdp): nothing to find, nothing required
      EXPECT_FALSE(k.header_required) << k.kind;
      continue;
    }
    EXPECT_EQ(k.identifier_offset + k.identifier.size(), kIdentifierEnd) << k.kind;
    EXPECT_EQ(k.header_magic.size(), 4u) << k.kind;
    EXPECT_EQ(k.header_offset, kHeaderOffset) << k.kind;
  }
  EXPECT_EQ(file_kind(FileKind::kBpte).identifier_offset + 4, kIdentifierEnd);
  // A probe holds the identifier and the whole header the head size is read from.
  EXPECT_GE(file_kind(FileKind::kPte).probe_bytes, kHeaderOffset + PteHeader::kLength);
  EXPECT_EQ(file_kind(FileKind::kPtd).probe_bytes, kHeaderOffset + PtdHeader::kPaddedLength);
  EXPECT_EQ(std::string(PteHeader::kMagic, 4), header_magic_of(FileKind::kPte));
  EXPECT_EQ(std::string(PtdHeader::kMagic, 4), header_magic_of(FileKind::kPtd));
  EXPECT_FALSE(file_kind(FileKind::kPte).header_required);
  EXPECT_TRUE(file_kind(FileKind::kPtd).header_required);
  EXPECT_EQ(file_kind_named("bin"), std::nullopt);
  // A size-prefixed ETDump: the identifier after the size and the root
  // offset; the probe holds both.
  const FileKindInfo& etdp = file_kind(FileKind::kEtdp);
  EXPECT_EQ(etdp.identifier, etdump_schema().file_identifier);
  EXPECT_EQ(etdp.identifier_offset, 8u);
  EXPECT_EQ(etdp.probe_bytes, etdp.identifier_offset + etdp.identifier.size());
  EXPECT_EQ(etdp.header_offset, 0u);
  EXPECT_FALSE(etdp.header_required);
}

TEST(FileKinds, KindOfBytes) {
  const auto pte = with_identifier(file_kind(FileKind::kPte).identifier.data());
  const auto ptd = with_identifier(file_kind(FileKind::kPtd).identifier.data());
  EXPECT_EQ(file_kind_of(pte.data(), pte.size()), FileKind::kPte);
  EXPECT_EQ(file_kind_of(ptd.data(), ptd.size()), FileKind::kPtd);
  EXPECT_EQ(file_kind_of(pte.data(), 7), std::nullopt);
  EXPECT_EQ(file_kind_of(nullptr, 0), std::nullopt);
  const auto other = with_identifier("ZZ99");
  EXPECT_EQ(file_kind_of(other.data(), other.size()), std::nullopt);
}

TEST(FileKinds, IdentifierVerdicts) {
  std::string older = identifier_of(FileKind::kPte).substr(0, 2) + "11";
  const auto old_pte = with_identifier(older.c_str());
  EXPECT_EQ(match_identifier(FileKind::kPte, old_pte.data(), old_pte.size()), IdentifierMatch::kOtherVersion);
  Status s = check_identifier(FileKind::kPte, old_pte.data(), old_pte.size(), old_pte.size());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kUnsupportedVersion);
  EXPECT_EQ(s.error().message, "program identifier '" + older + "' is not the supported '" +
                                   identifier_of(FileKind::kPte) + "' (at byte offset 4)");

  auto odd = with_identifier("Z\x01Z\x7f");
  EXPECT_EQ(match_identifier(FileKind::kPtd, odd.data(), odd.size()), IdentifierMatch::kForeign);
  s = check_identifier(FileKind::kPtd, odd.data(), odd.size(), odd.size());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kMalformedFile);
  EXPECT_EQ(s.error().message, "not a .ptd file: identifier 'Z\\x01Z\\x7f' != '" + identifier_of(FileKind::kPtd) +
                                   "' (at byte offset 4)");

  s = check_identifier(FileKind::kPtd, odd.data(), 5, 5);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kMalformedFile);
  EXPECT_EQ(s.error().message, "file is 5 bytes; a .ptd needs at least 8 (at byte offset 0)");
  EXPECT_EQ(match_identifier(FileKind::kPtd, odd.data(), 5), IdentifierMatch::kTooShort);
}

}  // namespace
}  // namespace etpack
