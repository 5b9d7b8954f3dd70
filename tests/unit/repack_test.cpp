#include <gtest/gtest.h>

#include <cstring>

#include "conformance/conformance_runner.h"
#include "ops/repack.h"
#include "model/scalar_type.h"
#include "read/ptd_reader.h"
#include "read/pte_reader.h"

namespace etpack {
namespace {

using conformance::read_file;

Blob load(const std::string& path) {
  auto b = read_file(path);
  EXPECT_TRUE(b.ok()) << path;
  return b.ok() ? *b : Blob();
}

// The source as a host would present it: only the flatbuffer head in memory,
// the whole file external (source id 7).
FileSource external_source(const Blob& bytes) {
  uint64_t have = std::min<uint64_t>(bytes.size(), kPteProbeBytes);
  auto head_size = pte_head_size(bytes.slice(0, have), bytes.size());
  while (head_size.ok() && *head_size > have) {  // asked again with more bytes (a .pte without eh00)
    have = *head_size;
    head_size = pte_head_size(bytes.slice(0, have), bytes.size());
  }
  EXPECT_TRUE(head_size.ok());
  Blob::External info;
  info.source = 7;
  return {bytes.slice(0, *head_size), Blob::external(info, bytes.size())};
}

std::vector<uint8_t> resolve(const Cord& cord, const Blob& source) {
  auto bytes = cord.to_bytes([&](uint32_t id, uint64_t offset, uint64_t size, uint8_t* dst) -> Status {
    if (id != 7 || offset + size > source.size()) return make_error(ErrorCode::kInternal, "bad external piece");
    std::memcpy(dst, source.data() + offset, size);
    return {};
  });
  EXPECT_TRUE(bytes.ok());
  return bytes.ok() ? *bytes : std::vector<uint8_t>();
}

TEST(Repack, DefaultReproducesAndNeverLoadsSegments) {
  const std::string dir = std::string(ETPACK_CONFORMANCE_DIR) + "/13_everything";
  Blob file = load(dir + "/out.pte");
  RepackOptions options;
  options.config.extract_delegate_segments = true;
  // The .ptd files the .pte uses are inputs (repack refuses without them).
  options.data = {{"model.ptd", FileSource::in_memory(load(dir + "/model.ptd"))},
                  {"shard_b.ptd", FileSource::in_memory(load(dir + "/shard_b.ptd"))}};
  FileSource source = external_source(file);
  auto result = repack(source, options);
  ASSERT_TRUE(result.ok()) << result.error().message;
  const Cord& pte = result->artifacts.pte;
  uint64_t external_bytes = 0;
  for (const auto& piece : pte.pieces())
    if (piece.kind == Cord::Piece::Kind::kBytes && piece.bytes.is_external()) external_bytes += piece.bytes.size();
  EXPECT_GT(external_bytes, 0u);  // segment bytes are references into the source
  std::vector<uint8_t> out = resolve(pte, file);
  EXPECT_TRUE(Blob::view(out.data(), out.size()).same_bytes(file));
}

TEST(Repack, ExternalizeMovesEveryConstantWithItsExactBytes) {
  Blob file = load(std::string(ETPACK_ARTIFACTS_DIR) + "/arduino_add.pte");
  auto before = deserialize_pte_binary(file);
  ASSERT_TRUE(before.ok());
  RepackOptions options;
  options.externalize = ExternalizeOptions{};
  auto result = repack(FileSource::in_memory(file), options);
  ASSERT_TRUE(result.ok()) << result.error().message;
  ASSERT_EQ(result->artifacts.ptd.size(), 1u);
  EXPECT_EQ(result->artifacts.ptd[0].first, "model");
  ASSERT_FALSE(result->moved.empty());

  auto pte_bytes = result->artifacts.pte.to_bytes();
  auto ptd_bytes = result->artifacts.ptd[0].second.to_bytes();
  ASSERT_TRUE(pte_bytes.ok() && ptd_bytes.ok());
  auto after = deserialize_pte_binary(Blob::own(*pte_bytes));
  auto ptd = deserialize_ptd(Blob::own(*ptd_bytes));
  ASSERT_TRUE(after.ok() && ptd.ok());
  EXPECT_FALSE(after->program.get("constant_buffer").is_items() &&
               after->program.get("constant_buffer").items().size() > 1);

  // Each originally constant tensor is now EXTERNAL; its bytes in the .ptd
  // equal the leading nbytes of its old constant slice.
  const auto& old_values = before->program.get("execution_plan").items()[0].table().get("values").items();
  const auto& new_values = after->program.get("execution_plan").items()[0].table().get("values").items();
  const auto& old_buffers = before->program.get("constant_buffer").items();
  int checked = 0;
  for (size_t i = 0; i < old_values.size(); ++i) {
    const Value& old_val = old_values[i].table().get("val");
    if (!old_val.is_table() || old_val.table().def->name != "Tensor") continue;
    uint64_t index = old_val.table().get_uint("data_buffer_idx");
    if (index == 0 || old_val.table().has("allocation_info")) continue;
    const TableValue& t = new_values[i].table().get("val").table();
    const TableValue& info = t.get("extra_tensor_info").table();
    EXPECT_EQ(info.get_uint("location"), 1u);
    std::string key = info.get("fully_qualified_name").str();
    bool found = false;
    for (const auto& [k, entry] : ptd->payload.named_data) {
      if (k != key) continue;
      found = true;
      const Blob& moved = ptd->payload.buffers[entry.buffer_index];
      const Blob& original = old_buffers[index].table().get("storage").scalars();
      ASSERT_LE(moved.size(), original.size());
      EXPECT_EQ(std::memcmp(moved.data(), original.data(), moved.size()), 0) << key;
      ASSERT_TRUE(entry.tensor_layout.has_value());
      EXPECT_EQ(entry.tensor_layout->scalar_type, old_val.table().get_int("scalar_type"));
    }
    EXPECT_TRUE(found) << key;
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

TEST(Repack, ExternalizeFilterKeepsOthersAndReindexes) {
  Blob file = load(std::string(ETPACK_CONFORMANCE_DIR) + "/02_constants_default/out.pte");
  RepackOptions options;
  options.externalize = ExternalizeOptions{};
  options.externalize->patterns = {"constant.2", "constant.4"};
  auto result = repack(FileSource::in_memory(file), options);
  ASSERT_TRUE(result.ok()) << result.error().message;
  ASSERT_EQ(result->moved.size(), 2u);
  auto after = deserialize_pte_binary(Blob::own(result->artifacts.pte.to_bytes().value()));
  auto before = deserialize_pte_binary(file);
  ASSERT_TRUE(after.ok() && before.ok());
  size_t old_count = before->program.get("constant_buffer").items().size();
  EXPECT_EQ(after->program.get("constant_buffer").items().size(), old_count - 2);
  // Every remaining constant tensor still sees its own bytes.
  const auto& old_values = before->program.get("execution_plan").items()[0].table().get("values").items();
  const auto& new_values = after->program.get("execution_plan").items()[0].table().get("values").items();
  for (size_t i = 0; i < old_values.size(); ++i) {
    const Value& o = old_values[i].table().get("val");
    if (!o.is_table() || o.table().def->name != "Tensor" || o.table().has("allocation_info")) continue;
    uint64_t oi = o.table().get_uint("data_buffer_idx");
    const TableValue& n = new_values[i].table().get("val").table();
    uint64_t ni = n.get_uint("data_buffer_idx");
    if (oi == 0 || ni == 0) continue;
    const Blob& ob = before->program.get("constant_buffer").items()[oi].table().get("storage").scalars();
    const Blob& nb = after->program.get("constant_buffer").items()[ni].table().get("storage").scalars();
    std::vector<int64_t> sizes;
    const Value& s = o.table().get("sizes");
    for (size_t k = 0; k < scalar_vector_length(s, BaseType::kInt); ++k) sizes.push_back(scalar_vector_int(s, BaseType::kInt, k));
    uint64_t nbytes = *tensor_nbytes(o.table().get_int("scalar_type"), sizes);
    ASSERT_GE(nb.size(), nbytes);
    EXPECT_EQ(std::memcmp(ob.data(), nb.data(), nbytes), 0) << "value " << i;
  }
}

TEST(Repack, MergeJoinsDataFilesUnderOneTag) {
  std::string dir = std::string(ETPACK_CONFORMANCE_DIR) + "/10_named_external_two_tags";
  Blob pte = load(dir + "/out.pte");
  RepackOptions options;
  options.merge = {FileSource::in_memory(load(dir + "/encoder.ptd")), FileSource::in_memory(load(dir + "/decoder.ptd"))};
  options.merge_tag = "all";
  auto result = repack(FileSource::in_memory(pte), options);
  ASSERT_TRUE(result.ok()) << result.error().message;
  ASSERT_EQ(result->artifacts.ptd.size(), 1u);
  EXPECT_EQ(result->artifacts.ptd[0].first, "all");
  auto merged = deserialize_ptd(Blob::own(result->artifacts.ptd[0].second.to_bytes().value()));
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(merged->payload.named_data.size(), result->merged_entries);
  EXPECT_GT(result->merged_entries, 1u);
}

TEST(Glob, Matches) {
  EXPECT_TRUE(glob_match("*", "anything"));
  EXPECT_TRUE(glob_match("lin*.weight", "linear.weight"));
  EXPECT_TRUE(glob_match("a?c", "abc"));
  EXPECT_FALSE(glob_match("a?c", "abbc"));
  EXPECT_FALSE(glob_match("*.bias", "linear.weight"));
}

}  // namespace
}  // namespace etpack
