// Tensors of a program that carry a fully-qualified name (constants and
// external tensors), and the names that several of them share with
// different layouts. One name, two layouts is legal in a .pte, but a .ptd
// entry or a safetensors tensor of that name can only fit one of them:
// weights import refuses it, export cannot write both under one name, and
// validate warns (see shared_name_conflicts).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/blob.h"
#include "model/fb_value.h"

namespace etpack {

struct NamedTensor {
  std::string name;
  bool has_name = true;  // false: a constant without an fqn (listed only where buffers are shared)
  std::string path;  // execution_plan[p].values[v]
  int64_t scalar_type = 0;
  std::vector<int64_t> sizes;
  std::vector<uint8_t> dim_order;
  bool external = false;         // location EXTERNAL: bytes in a .ptd
  uint64_t data_buffer_idx = 0;  // constant_buffer index (0: none)

  // Bytes the layout needs (element size x sizes), nullopt when unknown.
  std::optional<uint64_t> nbytes() const;
  bool same_layout(const NamedTensor& o) const {
    return scalar_type == o.scalar_type && sizes == o.sizes && dim_order == o.dim_order;
  }
};

// Every constant or external tensor with an fqn, in plan/value order (with
// `include_unnamed`, constants without one too, has_name false). Reads at
// most kMaxTensorRank sizes and dim_order entries of each (program_tensors.h).
std::vector<NamedTensor> named_tensors(const TableValue& program, const Blob& file, bool include_unnamed = false);

struct SharedNameConflict {
  std::string name;
  std::vector<size_t> tensors;  // indices into the list: the first tensor of the name, then each that differs from it
  std::string message;          // "\"w\" is Float[2, 3] dim_order [0, 1] at execution_plan[0].values[1] and ..."
};

// Names used by tensors of different layouts (scalar type, sizes or
// dim_order), in order of first use. Linear in the list (hashing by name).
//
// For validate (owned elsewhere): one call on the decoded program,
//   for (auto& c : shared_name_conflicts(named_tensors(program, file))) warn(c.message);
// gives the "one name, several layouts" warning, naming the tensor.
std::vector<SharedNameConflict> shared_name_conflicts(const std::vector<NamedTensor>& tensors);

// "Float[2, 3]", with " dim_order [1, 0]" when it is not the identity.
std::string layout_text(int64_t scalar_type, const std::vector<int64_t>& sizes, const std::vector<uint8_t>& dim_order);

}  // namespace etpack
