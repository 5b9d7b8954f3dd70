// Tensor bytes between a tensor's memory order (its dim_order) and logical
// row-major order, the order safetensors files hold. dim_order lists the
// dimensions from outermost to innermost in memory (ExecuTorch's
// convention): sizes [N, C, H, W] with dim_order [0, 2, 3, 1] is stored
// N, H, W, C ("channels last"). Export turns memory order into row-major,
// import row-major into memory order; the two are exact inverses.
#pragma once

#include <cstdint>
#include <vector>

#include "core/result.h"

namespace etpack {

// Whether dim_order is 0, 1, ..., rank-1 (the bytes are row-major already:
// nothing to permute, the bytes can be referenced instead of copied).
bool is_identity_dim_order(const std::vector<uint8_t>& dim_order);

enum class PermuteDirection : uint8_t {
  kToRowMajor,    // export: memory order (dim_order) -> row-major
  kFromRowMajor,  // import: row-major -> memory order (dim_order)
};

// Writes `src` (element_size bytes per element, sizes' element count of
// them) permuted into `dst` (the same size, not overlapping `src`). The one
// copy of tensor bytes a non-trivial dim_order costs; every byte is copied
// once. INVALID_ARGUMENT when dim_order is not a permutation of 0..rank-1,
// a size is negative, or the byte counts disagree.
Status permute_tensor(const uint8_t* src, uint8_t* dst, uint64_t byte_size, const std::vector<int64_t>& sizes,
                      const std::vector<uint8_t>& dim_order, uint64_t element_size, PermuteDirection direction);

}  // namespace etpack
