// format/headers.h's scans (the one parser of eh00 and FH01, whose states
// validate reports) and schema/verify.h (the one verification entry), over
// hand-made bytes: every field distinct, each truncation its own state.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "format/headers.h"
#include "read/aligned_bytes.h"
#include "schema/verify.h"

namespace etpack {
namespace {

// 8 bytes of root offset + identifier, then the header bytes.
std::vector<uint8_t> file_with(const std::vector<uint8_t>& header) {
  // Sized once and filled: growing an 8-byte vector with insert() makes
  // g++ 12's -Warray-bounds misfire on the memcpy it inlines.
  static const uint8_t kHead[8] = {0x11, 0x12, 0x13, 0x14, 'F', 'T', '0', '1'};
  std::vector<uint8_t> file(sizeof kHead + header.size());
  std::copy(kHead, kHead + sizeof kHead, file.begin());
  std::copy(header.begin(), header.end(), file.begin() + sizeof kHead);
  return file;
}

TEST(HeaderScan, PtdStates) {
  PtdHeader h;
  h.flatbuffer_offset = 0x0102030405060708;
  h.flatbuffer_size = 0x1112131415161718;
  h.segment_base_offset = 0x2122232425262728;
  h.segment_data_size = 0x3132333435363738;
  std::vector<uint8_t> file = file_with(encode_ptd_header(h));
  auto full = scan_ptd_header(file.data(), file.size());
  ASSERT_EQ(full.scan, HeaderScan::kComplete);
  EXPECT_EQ(full.header.length, PtdHeader::kLength);
  EXPECT_EQ(full.header.flatbuffer_offset, h.flatbuffer_offset);
  EXPECT_EQ(full.header.flatbuffer_size, h.flatbuffer_size);
  EXPECT_EQ(full.header.segment_base_offset, h.segment_base_offset);
  EXPECT_EQ(full.header.segment_data_size, h.segment_data_size);
  EXPECT_EQ(full.fields_end(), 48u);

  EXPECT_EQ(scan_ptd_header(file.data(), 11).scan, HeaderScan::kAbsent);
  EXPECT_EQ(scan_ptd_header(file.data(), 12).scan, HeaderScan::kNoLength);
  EXPECT_EQ(scan_ptd_header(file.data(), 15).scan, HeaderScan::kNoLength);
  EXPECT_EQ(scan_ptd_header(file.data(), 47).scan, HeaderScan::kTruncated);
  // The strict parse: no header before the length field, an error after.
  auto short_parse = parse_ptd_header(file.data(), 15);
  ASSERT_TRUE(short_parse.ok());
  EXPECT_FALSE(short_parse->has_value());
  auto truncated = parse_ptd_header(file.data(), 47);
  ASSERT_FALSE(truncated.ok());
  EXPECT_EQ(truncated.error().message, "file of 47 bytes ends inside the FH01 header");

  file[12] = 39;  // length below the 40-byte minimum
  auto small = scan_ptd_header(file.data(), file.size());
  EXPECT_EQ(small.scan, HeaderScan::kLengthTooSmall);
  EXPECT_EQ(small.header.length, 39u);
  auto refused = parse_ptd_header(file.data(), file.size());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, "FH01 header length 39 is below the minimum 40 (at byte offset 12)");

  file[12] = 200;  // longer than known: the known fields are read
  auto longer = scan_ptd_header(file.data(), file.size());
  EXPECT_EQ(longer.scan, HeaderScan::kComplete);
  EXPECT_EQ(longer.fields_end(), 48u);

  file[9] = 'X';  // no magic
  EXPECT_EQ(scan_ptd_header(file.data(), file.size()).scan, HeaderScan::kAbsent);
}

TEST(HeaderScan, PteStates) {
  PteHeader h;
  h.program_size = 0x0102030405060708;
  h.segment_base_offset = 0x1112131415161718;
  h.segment_data_size = 0x2122232425262728;
  std::vector<uint8_t> file = file_with(encode_pte_header(h, 32));
  auto full = scan_pte_header(file.data(), file.size());
  ASSERT_EQ(full.scan, HeaderScan::kComplete);
  EXPECT_EQ(full.header.program_size, h.program_size);
  EXPECT_EQ(full.header.segment_base_offset, h.segment_base_offset);
  EXPECT_EQ(full.header.segment_data_size, h.segment_data_size);
  EXPECT_EQ(full.fields_end(), 40u);
  EXPECT_EQ(scan_pte_header(file.data(), 39).scan, HeaderScan::kTruncated);

  file[12] = 24;  // the short header: no segment_data_size
  auto short_header = scan_pte_header(file.data(), 32);
  ASSERT_EQ(short_header.scan, HeaderScan::kComplete);
  EXPECT_EQ(short_header.header.segment_data_size, 0u);
  EXPECT_EQ(short_header.fields_end(), 32u);
  EXPECT_EQ(scan_pte_header(file.data(), 31).scan, HeaderScan::kTruncated);

  file[12] = 23;
  EXPECT_EQ(scan_pte_header(file.data(), file.size()).scan, HeaderScan::kLengthTooSmall);
  auto refused = parse_pte_header(file.data(), file.size());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, "eh00 header length 23 is below the minimum 24 (at byte offset 12)");
}

TEST(VerifyEntry, NamedLimitsPerRoot) {
  EXPECT_EQ(verify_limits(VerifiedRoot::kProgram).max_depth, kProgramVerifyLimits.max_depth);
  EXPECT_EQ(verify_limits(VerifiedRoot::kFlatTensor).max_tables, kFlatTensorVerifyLimits.max_tables);
  EXPECT_EQ(verify_limits(VerifiedRoot::kBundledProgram).max_tables, kBundledProgramVerifyLimits.max_tables);
  EXPECT_EQ(program_verify_limits_for_size(4000).max_tables, 2024u);
  // Eight bytes naming no root table, with each file identifier: no root
  // verifies (the root offset points past the end).
  for (const char* id : {"ET12", "FT01", "BP08"}) {
    std::vector<uint8_t> bytes = {0xF0, 0xFF, 0, 0, static_cast<uint8_t>(id[0]), static_cast<uint8_t>(id[1]),
                                  static_cast<uint8_t>(id[2]), static_cast<uint8_t>(id[3])};
    AlignedBytes aligned(bytes.data(), bytes.size());
    EXPECT_FALSE(flatbuffer_verifies(VerifiedRoot::kProgram, aligned.data(), aligned.size())) << id;
    EXPECT_FALSE(flatbuffer_verifies(VerifiedRoot::kFlatTensor, aligned.data(), aligned.size())) << id;
    EXPECT_FALSE(flatbuffer_verifies(VerifiedRoot::kBundledProgram, aligned.data(), aligned.size())) << id;
  }
}

}  // namespace
}  // namespace etpack
