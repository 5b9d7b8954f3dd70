// Layout of a tensor stored as named data (.ptd TensorLayout): what the
// runtime needs to interpret the bytes without the program.
#pragma once

#include <cstdint>
#include <vector>

namespace etpack {

struct TensorLayout {
  int8_t scalar_type = 0;          // executorch_flatbuffer.ScalarType
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;

  bool operator==(const TensorLayout& o) const {
    return scalar_type == o.scalar_type && sizes == o.sizes && dim_order == o.dim_order;
  }
  bool operator!=(const TensorLayout& o) const { return !(*this == o); }
};

}  // namespace etpack
