#include <gtest/gtest.h>

#include "core/blob.h"
#include "core/checked_math.h"
#include "core/content_index.h"
#include "core/sha256.h"
#include "core/cord.h"
#include "format/headers.h"
#include "plan/segment_layout.h"

namespace etpack {
namespace {

TEST(CheckedMath, AlignmentHelpers) {
  EXPECT_EQ(padding_to(0, 16), 0u);
  EXPECT_EQ(padding_to(17, 16), 15u);
  EXPECT_EQ(*aligned_to(100, 96), 192u);  // non power of two segment alignment
  EXPECT_EQ(*lcm_u64(128, 96), 384u);
  EXPECT_FALSE(aligned_to(UINT64_MAX, 2).has_value());
  EXPECT_FALSE(checked_mul(1ull << 40, 1ull << 40).has_value());
  EXPECT_TRUE(range_within(10, 0, 10));
  EXPECT_FALSE(range_within(11, 0, 10));
  EXPECT_FALSE(range_within(5, UINT64_MAX, 10));
  EXPECT_TRUE(is_power_of_two(1) && is_power_of_two(4096) && !is_power_of_two(0) && !is_power_of_two(48));
}

TEST(Blob, ViewsAndSlicesShareBytes) {
  std::vector<uint8_t> bytes{1, 2, 3, 4, 5};
  Blob v = Blob::view(bytes.data(), bytes.size());
  Blob s = v.slice(1, 3);
  EXPECT_EQ(s.data(), bytes.data() + 1);  // no copy
  EXPECT_EQ(s.size(), 3u);
  Blob o = Blob::own({2, 3, 4});
  EXPECT_TRUE(s.same_bytes(o));
  EXPECT_EQ(s.fingerprint(), o.fingerprint());
}

TEST(Blob, ExternalEqualityByDigest) {
  std::vector<uint8_t> bytes(100, 7);
  Blob memory = Blob::view(bytes.data(), bytes.size());
  Blob::External info;
  info.source = 3;
  info.digest = sha256(bytes.data(), bytes.size());
  info.head.assign(bytes.begin(), bytes.begin() + 32);
  info.tail.assign(bytes.end() - 32, bytes.end());
  Blob ext = Blob::external(info, bytes.size());
  EXPECT_TRUE(ext.is_external());
  EXPECT_EQ(ext.data(), nullptr);
  EXPECT_EQ(ext.fingerprint(), memory.fingerprint());  // consistent across kinds
  EXPECT_TRUE(ext.same_bytes(memory));
  bytes[50] = 8;  // the in-memory twin changes: digest recomputed lazily? no: cached
  Blob other = Blob::own(std::vector<uint8_t>(100, 9));
  EXPECT_FALSE(ext.same_bytes(other));
  Blob::External no_digest;
  no_digest.source = 3;
  Blob bare = Blob::external(no_digest, 100);
  EXPECT_TRUE(bare.same_bytes(ext));   // same source and offset: identity
  EXPECT_FALSE(bare.same_bytes(other));  // unknown content never equals
}

// A host file of 256 bytes (source 5) read through the external reader.
std::vector<uint8_t> g_host_file;
size_t g_host_reads = 0;
bool read_host_file(uint32_t source, uint64_t offset, uint64_t size, uint8_t* dst, void*) {
  if (source != 5 || offset > g_host_file.size() || size > g_host_file.size() - offset) return false;
  std::memcpy(dst, g_host_file.data() + offset, static_cast<size_t>(size));
  g_host_reads += static_cast<size_t>(size);
  return true;
}

class HostFile : public ExternalHost {
 public:
  std::optional<Digest> digest(uint32_t, uint64_t, uint64_t) override { return std::nullopt; }
  bool read(uint32_t source, uint64_t offset, uint64_t size, uint8_t* dst) override {
    return read_host_file(source, offset, size, dst, nullptr);
  }
  bool peek(uint32_t source, uint64_t offset, uint64_t size, uint8_t* dst) override {
    return read_host_file(source, offset, size, dst, nullptr);
  }
};

TEST(Blob, ExternalWithoutEdgesReadsThemForTheFingerprint) {
  g_host_file.resize(256);
  for (size_t i = 0; i < g_host_file.size(); ++i) g_host_file[i] = static_cast<uint8_t>(i * 31 + 1);
  Blob::External info;
  info.source = 5;
  Blob file = Blob::external(info, g_host_file.size());
  Blob a = file.slice(0, 128), b = file.slice(128, 128);
  Blob a_memory = Blob::view(g_host_file.data(), 128);

  // No reader: edges unknown, equal sizes collide.
  EXPECT_EQ(a.fingerprint(), b.fingerprint());
  // Its host handed in: edges read through it.
  info.host = std::make_shared<HostFile>();
  Blob hosted = Blob::external(info, g_host_file.size());
  Blob a2 = hosted.slice(0, 128), b2 = hosted.slice(128, 128);
  g_host_reads = 0;
  EXPECT_NE(a2.fingerprint(), b2.fingerprint());       // told apart by 2 x 32 bytes each
  EXPECT_EQ(a2.fingerprint(), a_memory.fingerprint());  // and consistent with in-memory bytes
  EXPECT_EQ(g_host_reads, 2u * 64u);
  a2.fingerprint();
  EXPECT_EQ(g_host_reads, 2u * 64u);  // cached
}

TEST(ContentIndex, DedupsEqualBytesOnly) {
  ContentIndex index;
  Blob a = Blob::own({1, 2, 3});
  Blob b = Blob::own({1, 2, 3});
  Blob c = Blob::own({1, 2, 4});
  EXPECT_EQ(index.find_or_add(a, 0), 0);
  EXPECT_EQ(index.find_or_add(b, 1), 0);
  EXPECT_EQ(index.find_or_add(c, 2), 2);
  EXPECT_EQ(index.find(Blob::own({9})), -1);
}

TEST(Cord, AssemblesViewsOwnedAndZeros) {
  std::vector<uint8_t> weights{9, 8, 7};
  Cord c;
  c.append_owned({1, 2});
  c.append_zeros(3);
  c.append_zeros(1);  // merged with the previous run
  c.append(Blob::view(weights.data(), weights.size()));
  EXPECT_EQ(c.size(), 9u);
  EXPECT_EQ(c.pieces().size(), 3u);
  EXPECT_EQ(c.pieces()[2].bytes.data(), weights.data());  // referenced, not copied
  auto bytes = c.to_bytes();
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(*bytes, (std::vector<uint8_t>{1, 2, 0, 0, 0, 0, 9, 8, 7}));
}

TEST(Cord, RefusesToFlattenExternalPieces) {
  Cord c;
  c.append(Blob::external({}, 10));
  EXPECT_TRUE(c.has_external());
  auto bytes = c.to_bytes();
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error().code, ErrorCode::kInvalidArgument);
}

TEST(SegmentLayout, LcmAlignmentAndNoTrailingPadding) {
  std::vector<SegmentInput> segments(3);
  segments[0].data.append_owned(std::vector<uint8_t>(10, 1));
  segments[1].data.append_owned(std::vector<uint8_t>(5, 2));
  segments[1].alignment = 256;
  segments[2].data.append_owned(std::vector<uint8_t>(1, 3));
  segments[2].alignment = 3;  // lcm(96, 3) = 96
  auto plan = plan_segments(segments, 96);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->offsets, (std::vector<uint64_t>{0, 768, 864}));  // lcm(96,256)=768
  EXPECT_EQ(plan->total_size, 865u);
  Cord data = assemble_segments(segments, *plan);
  EXPECT_EQ(data.size(), 865u);
  auto zero = plan_segments(segments, 0);
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().code, ErrorCode::kInvalidAlignment);
}

TEST(Headers, RoundTripAndCorruption) {
  PteHeader h;
  h.program_size = 0x1122334455667788ull;
  h.segment_base_offset = 42;
  h.segment_data_size = 7;
  std::vector<uint8_t> file(8, 0);
  auto header = encode_pte_header(h, 64);
  ASSERT_EQ(header.size(), 64u);
  file.insert(file.end(), header.begin(), header.end());
  auto parsed = parse_pte_header(file.data(), file.size());
  ASSERT_TRUE(parsed.ok() && parsed->has_value());
  EXPECT_EQ((*parsed)->program_size, h.program_size);
  EXPECT_EQ((*parsed)->segment_data_size, 7u);
  file[12] = 8;  // length below the 24-byte minimum
  auto bad = parse_pte_header(file.data(), file.size());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kMalformedFile);
  file[8] = 'x';  // no magic: no header, not an error
  auto none = parse_pte_header(file.data(), file.size());
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

}  // namespace
}  // namespace etpack
