#include "ops/weights_layout.h"

#include <cstring>
#include <string>

#include "core/checked_math.h"

namespace etpack {

bool is_identity_dim_order(const std::vector<uint8_t>& dim_order) {
  for (size_t i = 0; i < dim_order.size(); ++i)
    if (dim_order[i] != i) return false;
  return true;
}

Status permute_tensor(const uint8_t* src, uint8_t* dst, uint64_t byte_size, const std::vector<int64_t>& sizes,
                      const std::vector<uint8_t>& dim_order, uint64_t element_size, PermuteDirection direction) {
  const size_t rank = sizes.size();
  if (dim_order.size() != rank) return make_error(ErrorCode::kInvalidArgument, "dim_order has " + std::to_string(dim_order.size()) + " entries for a rank-" + std::to_string(rank) + " tensor");
  std::vector<bool> seen(rank, false);
  for (uint8_t d : dim_order) {
    if (d >= rank || seen[d]) return make_error(ErrorCode::kInvalidArgument, "dim_order is not a permutation of 0.." + std::to_string(rank ? rank - 1 : 0));
    seen[d] = true;
  }
  std::optional<uint64_t> count = element_size;
  for (int64_t s : sizes) {
    if (s < 0) return make_error(ErrorCode::kInvalidArgument, "negative size " + std::to_string(s));
    if (count) count = checked_mul(*count, static_cast<uint64_t>(s));
  }
  if (!count || *count != byte_size)
    return make_error(ErrorCode::kInvalidArgument, "tensor of " + std::to_string(byte_size) + " bytes does not match its sizes");
  if (byte_size == 0) return {};
  // Memory strides (in elements) of each logical dimension: the innermost
  // dimension of dim_order has stride 1.
  std::vector<uint64_t> stride(rank, 1);
  for (size_t k = rank; k-- > 1;) stride[dim_order[k - 1]] = stride[dim_order[k]] * static_cast<uint64_t>(sizes[dim_order[k]]);
  // Walk logical indices in row-major order, tracking the memory offset
  // incrementally (an odometer): O(elements) with no division.
  std::vector<int64_t> index(rank, 0);
  uint64_t memory = 0;
  const uint64_t elements = byte_size / element_size;
  for (uint64_t logical = 0; logical < elements; ++logical) {
    const uint64_t from = direction == PermuteDirection::kToRowMajor ? memory : logical;
    const uint64_t to = direction == PermuteDirection::kToRowMajor ? logical : memory;
    std::memcpy(dst + to * element_size, src + from * element_size, element_size);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < sizes[d]) {
        memory += stride[d];
        break;
      }
      memory -= stride[d] * static_cast<uint64_t>(sizes[d] - 1);
      index[d] = 0;
    }
  }
  return {};
}

}  // namespace etpack
