// read_ptd_table reads a .ptd's FlatTensor table in columns (issue 29). It
// must accept and refuse exactly what the generic decoder + verifier did,
// with the same message, and give the same values: checked here against
// decode_verified_flat_tensor on every one-byte change of a small file.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "encode/ptd_writer.h"
#include "read/program_tensors.h"
#include "read/ptd_reader.h"
#include "read/ptd_table.h"
#include "read/verified_decode.h"

namespace etpack {
namespace {

std::vector<uint8_t> small_ptd() {
  static std::vector<uint8_t> a(24, 1), b(8, 2);
  DataPayload payload;
  payload.buffers = {Blob::view(a.data(), a.size()), Blob::view(b.data(), b.size())};
  payload.named_data = {{"weight", DataEntry{0, 16, TensorLayout{6, {2, 3}, {0, 1}}}},
                        {"bias", DataEntry{1, 16, TensorLayout{15, {2}, {0}}}},
                        {"raw", DataEntry{1, 16, std::nullopt}}};
  auto cord = FlatTensorSerializer().serialize(payload);
  EXPECT_TRUE(cord.ok());
  return std::move(cord->to_bytes().value());
}

// The columns against the tree the generic decoder builds of the same bytes.
void expect_same(const PtdTable& ptd, const TableValue& root, const Blob& file) {
  EXPECT_EQ(ptd.version, root.get_uint("version"));
  EXPECT_EQ(ptd.has_segments, root.has("segments"));
  EXPECT_EQ(ptd.has_named_data, root.has("named_data"));
  const Value& segments = root.get("segments");
  ASSERT_EQ(ptd.segments.size(), segments.is_items() ? segments.items().size() : 0u);
  for (size_t i = 0; i < ptd.segments.size(); ++i) {
    EXPECT_EQ(ptd.segments[i].offset, segments.items()[i].table().get_uint("offset"));
    EXPECT_EQ(ptd.segments[i].size, segments.items()[i].table().get_uint("size"));
  }
  const Value& named = root.get("named_data");
  ASSERT_EQ(ptd.named_count(), named.is_items() ? named.items().size() : 0u);
  for (size_t i = 0; i < ptd.named_count(); ++i) {
    const TableValue& entry = named.items()[i].table();
    const Value& key = entry.get("key");
    ASSERT_EQ(ptd.key(i).has_value(), key.is_string());
    if (key.is_string()) {
      EXPECT_EQ(std::string(*ptd.key(i)), key.str());
    }
    EXPECT_EQ(ptd.segment_index[i], entry.get_uint("segment_index"));
    const Value& layout = entry.get("tensor_layout");
    ASSERT_EQ(ptd.layout_of(i) != nullptr, layout.is_table());
    if (!layout.is_table()) continue;
    const TensorView want = view_tensor(layout.table(), file);
    const TensorView& got = ptd.layout_of(i)->view;
    EXPECT_EQ(got.scalar_type, want.scalar_type);
    EXPECT_EQ(got.rank, want.rank);
    EXPECT_EQ(got.sizes, want.sizes);
    EXPECT_EQ(got.dim_order_length, want.dim_order_length);
    EXPECT_EQ(got.dim_order, want.dim_order);
    EXPECT_EQ(got.sizes_offset, want.sizes_offset);
  }
}

TEST(PtdTable, ColumnsOfAWrittenFile) {
  std::vector<uint8_t> bytes = small_ptd();
  const Blob file = Blob::view(bytes.data(), bytes.size());
  auto ptd = read_ptd_table(file);
  ASSERT_TRUE(ptd.ok()) << ptd.error().message;
  ASSERT_EQ(ptd->named_count(), 3u);
  EXPECT_EQ(std::string(*ptd->key(0)), "weight");
  EXPECT_EQ(std::string(*ptd->key(2)), "raw");
  EXPECT_EQ(ptd->segment_index, (std::vector<uint32_t>{0, 1, 1}));
  ASSERT_EQ(ptd->layouts.size(), 2u);
  EXPECT_EQ(ptd->layout[2], PtdTable::kNoLayout);
  EXPECT_EQ(ptd->layout_of(1)->view.scalar_type, 15);
  EXPECT_EQ(ptd->layout_of(0)->view.sizes, (std::vector<int64_t>{2, 3}));
  ASSERT_EQ(ptd->segments.size(), 2u);
  EXPECT_EQ(ptd->segments[0].size, 24u);
  auto tree = decode_verified_flat_tensor(file.slice(0, ptd->flatbuffer_end));
  ASSERT_TRUE(tree.ok());
  expect_same(*ptd, *tree, file);
}

// Every byte of the root offset and of the flatbuffer past the header, set
// to a few values: both readers agree on the outcome and the message.
TEST(PtdTable, AgreesWithTheGenericDecoderOnEveryOneByteChange) {
  const std::vector<uint8_t> original = small_ptd();
  auto head = read_ptd_table(Blob::view(original.data(), original.size()));
  ASSERT_TRUE(head.ok());
  const uint64_t fb_end = head->flatbuffer_end;
  size_t refused = 0, accepted = 0;
  for (size_t at = 0; at < fb_end; ++at) {
    if (at >= 4 && at < head->header.flatbuffer_offset) continue;  // identifier and header: check_ptd_head's
    for (uint8_t value : {uint8_t{0}, uint8_t{1}, uint8_t{0x7f}, uint8_t{0xff}, static_cast<uint8_t>(original[at] + 4)}) {
      if (value == original[at]) continue;
      std::vector<uint8_t> bytes = original;
      bytes[at] = value;
      const Blob file = Blob::view(bytes.data(), bytes.size());
      auto columns = read_ptd_table(file);
      auto tree = decode_verified_flat_tensor(file.slice(0, fb_end));
      SCOPED_TRACE("byte " + std::to_string(at) + " = " + std::to_string(value));
      ASSERT_EQ(columns.ok(), tree.ok()) << (columns.ok() ? tree.error().message : columns.error().message);
      if (!tree.ok()) {
        ++refused;
        EXPECT_EQ(columns.error().code, tree.error().code);
        EXPECT_EQ(columns.error().message, tree.error().message);
        continue;
      }
      ++accepted;
      expect_same(*columns, *tree, file);
    }
  }
  EXPECT_GT(refused, 50u);
  EXPECT_GT(accepted, 50u);
}

// A dim_order shorter than sizes (fuzz finding: repack wrote a file its own
// validate refused): the runtime reads as many bytes as sizes has, past the
// vector. deserialize_ptd gives those bytes, so a file written back from it
// loads the same layout, now as a vector of the full length.
TEST(PtdTable, DeserializeGivesTheDimOrderBytesTheRuntimeReads) {
  static std::vector<uint8_t> a(24, 1);
  DataPayload payload;
  payload.buffers = {Blob::view(a.data(), a.size())};
  payload.named_data = {{"weight", DataEntry{0, 16, TensorLayout{6, {2, 3}, {}}}}};
  auto cord = FlatTensorSerializer().serialize(payload);
  ASSERT_TRUE(cord.ok());
  std::vector<uint8_t> bytes = std::move(cord->to_bytes().value());
  const Blob file = Blob::view(bytes.data(), bytes.size());
  auto runtime = read_ptd_entries(file, file.size(), nullptr);
  ASSERT_TRUE(runtime.ok()) << runtime.error().message;
  const std::vector<uint8_t> read = runtime->layout_of(0)->view.dim_order;
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(runtime->layout_of(0)->dim_order_count, 0u);
  auto back = deserialize_ptd(file);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->payload.named_data[0].second.tensor_layout->dim_order, read);
  auto again = FlatTensorSerializer().serialize(back->payload);
  ASSERT_TRUE(again.ok());
  std::vector<uint8_t> rewritten = std::move(again->to_bytes().value());
  auto reread = read_ptd_entries(Blob::view(rewritten.data(), rewritten.size()), rewritten.size(), nullptr);
  ASSERT_TRUE(reread.ok());
  EXPECT_EQ(reread->layout_of(0)->view.dim_order, read);
  EXPECT_EQ(reread->layout_of(0)->dim_order_count, 2u);
}

}  // namespace
}  // namespace etpack
