// 64-bit offsets end to end: artifacts far larger than 4 GiB are planned
// from external blobs (nothing allocated), and every header field and
// segment offset past 2^32 comes out exact, on the way in and out.
#include <gtest/gtest.h>

#include "core/le_bytes.h"
#include "ops/serialize_for_executorch.h"
#include "format/headers.h"
#include "read/ptd_reader.h"
#include "read/pte_reader.h"

namespace etpack {
namespace {

constexpr uint64_t kGiB = 1ull << 30;

Blob huge(uint32_t source, uint64_t size, uint8_t tag) {
  Blob::External info;
  info.source = source;
  Digest d{};
  d[0] = tag;  // distinct content for the store's dedup
  info.digest = d;
  return Blob::external(info, size);
}

TEST(LargeOffsets, PtdPastFourGiBHasExactOffsets) {
  NamedDataStore store;
  ASSERT_TRUE(store.add_named_data("a", huge(1, 3 * kGiB + 5, 1), 1, std::string("big")).ok());
  ASSERT_TRUE(store.add_named_data("b", huge(2, 2 * kGiB + 7, 2), 64, std::string("big")).ok());
  ASSERT_TRUE(store.add_named_data("c", huge(1, 3 * kGiB + 5, 1), 1, std::string("big")).ok());  // dedup
  EmitterOutput emitter;
  emitter.program.at("segments") = Value::from_items({});
  FlatTensorSerializer serializer;
  NamedDataStoreOutput out = store.get_named_data_store_output();
  ASSERT_EQ(out.buffers.size(), 2u);
  auto result = serialize_for_executorch(emitter, PteConfig{}, serializer, &out);
  ASSERT_TRUE(result.ok()) << result.error().message;
  ASSERT_EQ(result->ptd.size(), 1u);
  const Cord& ptd = result->ptd[0].second;

  // Second segment starts at aligned(3 GiB + 5, lcm(128, 64)) past the base.
  const uint64_t second = 3 * kGiB + 128;
  const Cord::Piece& head = ptd.pieces().front();
  ASSERT_FALSE(head.bytes.is_external());
  PtdHeader h = parse_ptd_header(head.bytes.data(), static_cast<size_t>(head.bytes.size())).value().value();
  EXPECT_EQ(h.segment_data_size, second + 2 * kGiB + 7);
  EXPECT_EQ(ptd.size(), h.segment_base_offset + h.segment_data_size);
  EXPECT_GT(ptd.size(), 5 * kGiB);

  // Read the planned file back: head in memory, body external.
  Blob::External whole;
  whole.source = 9;
  auto back = deserialize_ptd(head.bytes, Blob::external(whole, ptd.size()));
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->payload.buffers.size(), 2u);
  EXPECT_EQ(back->payload.buffers[1].external_info()->offset, h.segment_base_offset + second);
  EXPECT_EQ(back->payload.buffers[1].size(), 2 * kGiB + 7);
  EXPECT_EQ(back->payload.named_data.size(), 3u);
}

TEST(LargeOffsets, PteSegmentsPastFourGiB) {
  NamedDataStore store;
  ASSERT_TRUE(store.add_named_data("w0", huge(1, 5 * kGiB, 1)).ok());
  ASSERT_TRUE(store.add_named_data("w1", huge(2, 17, 2), 16).ok());
  EmitterOutput emitter;
  emitter.program.at("segments") = Value::from_items({});
  FlatTensorSerializer serializer;
  NamedDataStoreOutput out = store.get_named_data_store_output();
  auto result = serialize_for_executorch(emitter, PteConfig{}, serializer, &out);
  ASSERT_TRUE(result.ok()) << result.error().message;
  const Cord& pte = result->pte;
  const Blob& head = pte.pieces().front().bytes;
  Blob::External whole;
  whole.source = 9;
  auto back = read_pte_program(head, pte.size());
  ASSERT_TRUE(back.ok()) << back.error().message;
  const auto& segments = back->program.get("segments").items();
  ASSERT_EQ(segments.size(), 2u);
  EXPECT_EQ(segments[1].table().get_uint("offset"), 5 * kGiB);  // 5 GiB is already 128-aligned
  EXPECT_EQ(back->header->segment_data_size, 5 * kGiB + 17);
  auto full = deserialize_pte_binary(head, Blob::external(whole, pte.size()));
  ASSERT_TRUE(full.ok()) << full.error().message;
  ASSERT_TRUE(full->named_data.has_value());
  EXPECT_EQ(full->named_data->buffers[1].external_info()->offset, back->header->segment_base_offset + 5 * kGiB);
}

}  // namespace
}  // namespace etpack
