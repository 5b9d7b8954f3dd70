// Weights exchange: dim-order permutations (exact, both ways), the matcher's
// shared-name rules, export's choices, and diff's range-hash plan.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "core/sha256.h"
#include "ops/diff_ranges.h"
#include "ops/weights_layout.h"
#include "ops/weights_match.h"

namespace etpack {
namespace {

std::vector<uint8_t> bytes_of(const std::vector<uint32_t>& v) {
  std::vector<uint8_t> out(v.size() * 4);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

TEST(WeightsLayout, TwoDimensionalColumnMajor) {
  // Logical 2x3 [[0,1,2],[3,4,5]] stored with dim_order [1, 0]: column by column.
  const std::vector<uint8_t> stored = bytes_of({0, 3, 1, 4, 2, 5});
  std::vector<uint8_t> row_major(stored.size());
  ASSERT_TRUE(permute_tensor(stored.data(), row_major.data(), stored.size(), {2, 3}, {1, 0}, 4, PermuteDirection::kToRowMajor).ok());
  EXPECT_EQ(row_major, bytes_of({0, 1, 2, 3, 4, 5}));
  std::vector<uint8_t> back(stored.size());
  ASSERT_TRUE(permute_tensor(row_major.data(), back.data(), back.size(), {2, 3}, {1, 0}, 4, PermuteDirection::kFromRowMajor).ok());
  EXPECT_EQ(back, stored);
}

TEST(WeightsLayout, FourDimensionalChannelsLast) {
  // N=2, C=3, H=2, W=2; logical value = its row-major index.
  const std::vector<int64_t> sizes = {2, 3, 2, 2};
  std::vector<uint32_t> logical(24);
  std::iota(logical.begin(), logical.end(), 0);
  // Channels last (dim_order [0, 2, 3, 1]): element (n, c, h, w) at ((n*2 + h)*2 + w)*3 + c.
  std::vector<uint32_t> stored(24);
  for (uint32_t n = 0; n < 2; ++n)
    for (uint32_t c = 0; c < 3; ++c)
      for (uint32_t h = 0; h < 2; ++h)
        for (uint32_t w = 0; w < 2; ++w) stored[((n * 2 + h) * 2 + w) * 3 + c] = ((n * 3 + c) * 2 + h) * 2 + w;
  std::vector<uint8_t> out(96);
  const std::vector<uint8_t> in = bytes_of(stored);
  ASSERT_TRUE(permute_tensor(in.data(), out.data(), 96, sizes, {0, 2, 3, 1}, 4, PermuteDirection::kToRowMajor).ok());
  EXPECT_EQ(out, bytes_of(logical));
  std::vector<uint8_t> back(96);
  ASSERT_TRUE(permute_tensor(out.data(), back.data(), 96, sizes, {0, 2, 3, 1}, 4, PermuteDirection::kFromRowMajor).ok());
  EXPECT_EQ(back, in);
}

TEST(WeightsLayout, RefusesBadDimOrders) {
  uint8_t a[16] = {}, b[16] = {};
  EXPECT_FALSE(permute_tensor(a, b, 16, {2, 2}, {0, 0}, 4, PermuteDirection::kToRowMajor).ok());
  EXPECT_FALSE(permute_tensor(a, b, 16, {2, 2}, {0}, 4, PermuteDirection::kToRowMajor).ok());
  EXPECT_FALSE(permute_tensor(a, b, 12, {2, 2}, {0, 1}, 4, PermuteDirection::kToRowMajor).ok());
  EXPECT_TRUE(is_identity_dim_order({0, 1, 2}));
  EXPECT_FALSE(is_identity_dim_order({1, 0}));
}

NamedTensor tensor(const std::string& name, int64_t type, std::vector<int64_t> sizes, bool external, uint64_t buffer = 0,
                   std::vector<uint8_t> dim_order = {}) {
  NamedTensor t;
  t.name = name;
  t.path = "execution_plan[0].values[" + std::to_string(buffer) + name + "]";
  t.scalar_type = type;
  if (dim_order.empty())
    for (size_t i = 0; i < sizes.size(); ++i) dim_order.push_back(static_cast<uint8_t>(i));
  t.dim_order = dim_order;
  t.sizes = std::move(sizes);
  t.external = external;
  t.data_buffer_idx = buffer;
  return t;
}

Checkpoints checkpoint(std::vector<SafetensorsTensor> tensors) {
  std::vector<CheckpointFile> files(1);
  files[0].file = "ck.safetensors";
  files[0].header.tensors = std::move(tensors);
  return std::move(collect_checkpoints(std::move(files), {})).value();
}

// `name` is viewed, as the reader's names view the header: a literal here.
SafetensorsTensor st(std::string_view name, const std::string& dtype, std::vector<uint64_t> shape) {
  SafetensorsTensor t;
  t.name = name;
  t.dtype = safetensors_dtype_name(dtype);
  t.scalar_type = safetensors_dtype_scalar(dtype);
  t.shape = std::move(shape);
  return t;
}

TEST(WeightsMatch, SharedNameRefusedNamingEveryTensorThatDiffers) {
  // One name, a Float[3] and a Half[6] constant: F32[3] bytes must not land in the Half one.
  const std::vector<NamedTensor> program = {tensor("w", 6, {3}, false, 1), tensor("w", 5, {6}, false, 2), tensor("w", 5, {6}, false, 3)};
  const WeightsPlan plan = match_weights(program, checkpoint({st("w", "F32", {3})}), WeightsTarget::kConstant);
  ASSERT_EQ(plan.problems.size(), 2u);
  EXPECT_EQ(plan.problems[0].problem, "dtype");
  EXPECT_NE(plan.problems[0].message.find(program[1].path), std::string::npos);
  EXPECT_NE(plan.problems[1].message.find(program[2].path), std::string::npos);
  EXPECT_EQ(weights_mismatch(plan.problems).code, ErrorCode::kWeightsMismatch);
}

TEST(WeightsMatch, ExternalNameAtTwoShapesOrDimOrdersIsRefused) {
  const auto shapes = match_weights({tensor("e", 6, {4}, true), tensor("e", 6, {2, 2}, true)}, checkpoint({st("e", "F32", {4})}), WeightsTarget::kExternal);
  ASSERT_EQ(shapes.problems.size(), 1u);
  EXPECT_EQ(shapes.problems[0].problem, "shape");
  const auto orders = match_weights({tensor("e", 6, {2, 2}, true, 0, {0, 1}), tensor("e", 6, {2, 2}, true, 0, {1, 0})},
                                    checkpoint({st("e", "F32", {2, 2})}), WeightsTarget::kExternal);
  ASSERT_EQ(orders.problems.size(), 1u);
  EXPECT_EQ(orders.problems[0].problem, "layout");
}

TEST(WeightsMatch, AssignsPermutesAndListsUnusedAndMissing) {
  const auto plan = match_weights({tensor("a", 6, {2, 3}, true, 0, {1, 0}), tensor("b", 6, {2}, true)},
                                  checkpoint({st("a", "F32", {2, 3}), st("z", "U8", {1})}), WeightsTarget::kExternal);
  ASSERT_EQ(plan.problems.size(), 1u);
  EXPECT_EQ(plan.problems[0].problem, "missing");
  const auto ok = match_weights({tensor("a", 6, {2, 3}, true, 0, {1, 0})}, checkpoint({st("a", "F32", {2, 3}), st("z", "U8", {1})}), WeightsTarget::kExternal);
  ASSERT_TRUE(ok.problems.empty());
  ASSERT_EQ(ok.assigned.size(), 1u);
  EXPECT_TRUE(ok.assigned[0].permute);
  EXPECT_EQ(ok.unused, std::vector<size_t>{1});
}

TEST(WeightsMatch, RenameCollisionIsCoded) {
  std::vector<CheckpointFile> files(2);
  files[0].file = "a.safetensors";
  files[0].header.tensors = {st("base.w", "F32", {1})};
  files[1].file = "b.safetensors";
  files[1].header.tensors = {st("w", "F32", {1})};
  auto r = collect_checkpoints(std::move(files), {{"base.", ""}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kSafetensorsDuplicate);
}

TEST(WeightsExport, ConflictShortDataAndSkips) {
  std::vector<ExportCandidate> two = {{tensor("w", 6, {2}, false, 1), 8, "constant_buffer[1]"}, {tensor("w", 6, {3}, false, 2), 12, "constant_buffer[2]"}};
  auto conflict = plan_export(two, {});
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.error().code, ErrorCode::kWeightsNameConflict);
  EXPECT_NE(conflict.error().message.find("values[1w]"), std::string::npos);
  EXPECT_NE(conflict.error().message.find("values[2w]"), std::string::npos);
  auto short_entry = plan_export({{tensor("e", 6, {4}, true), 8, "m.ptd"}}, {});
  ASSERT_FALSE(short_entry.ok());
  EXPECT_EQ(short_entry.error().code, ErrorCode::kExternalDataMissing);
  EXPECT_NE(short_entry.error().message.find("needs 16 bytes; m.ptd holds 8"), std::string::npos) << short_entry.error().message;
  auto plan = plan_export({{tensor("q", 12, {4}, false, 1), 4, "x"}, {tensor("k", 6, {1}, false, 2, {0}), 4, "x"}, {tensor("n", 6, {1}, false, 3), 4, "x"}}, {"k"});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->chosen, std::vector<size_t>{1});
}

TEST(DiffRanges, EachDistinctRangeOnceSharingStarts) {
  // Three tensors viewing prefixes of one constant at 16, one repeated, one elsewhere.
  auto plan = plan_range_hashes({{16, 8}, {16, 4}, {16, 8}, {40, 4}}, 64);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->distinct.size(), 3u);
  EXPECT_EQ(plan->streams.size(), 2u);
  EXPECT_EQ(plan->range_of[0], plan->range_of[2]);
  std::vector<uint8_t> file(64);
  std::iota(file.begin(), file.end(), 0);
  auto digests = hash_ranges(*plan, file.data(), file.size());
  EXPECT_EQ(digests[plan->range_of[0]], sha256_hex(file.data() + 16, 8));
  EXPECT_EQ(digests[plan->range_of[1]], sha256_hex(file.data() + 16, 4));
  EXPECT_EQ(digests[plan->range_of[3]], sha256_hex(file.data() + 40, 4));
  EXPECT_FALSE(plan_range_hashes({{60, 8}}, 64).ok());
}

}  // namespace
}  // namespace etpack
