// Read-only views of the tensors of a decoded Program (a TableValue tree
// from read_pte_program), shared by validate and inspect. Views read at most
// kMaxTensorRank elements of a tensor's sizes and dim_order, so walking every
// tensor costs time linear in the decoded tree even when hostile tables share
// one long vector.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "model/fb_value.h"

namespace etpack {

// The runtime's kTensorDimensionLimit.
constexpr size_t kMaxTensorRank = 16;

// Where a tensor's data comes from, as the runtime's getTensorDataPtr decides.
enum class TensorData : uint8_t {
  kNone,              // data_buffer_idx 0, no allocation_info: supplied at run time
  kPlanned,           // data_buffer_idx 0 with allocation_info: memory-planned, no initial data
  kConstant,          // data_buffer_idx > 0, no allocation_info: constant_segment / constant_buffer
  kMutable,           // data_buffer_idx > 0 with allocation_info: mutable_data_segments[0]
  kExternalConstant,  // location EXTERNAL, no allocation_info: a .ptd entry
  kExternalMutable,   // location EXTERNAL with allocation_info: a .ptd entry loaded into planned memory
};

struct TensorView {
  int64_t scalar_type = 0;
  int64_t storage_offset = 0;
  int64_t shape_dynamism = 0;
  uint64_t data_buffer_idx = 0;
  bool has_allocation_info = false;
  TensorData data = TensorData::kNone;
  std::optional<std::string> fqn;  // extra_tensor_info.fully_qualified_name
  // Lengths of the vectors in the file (nullopt: the field is absent).
  std::optional<size_t> rank;
  std::optional<size_t> dim_order_length;
  // The first min(length, kMaxTensorRank) elements.
  std::vector<int64_t> sizes;
  std::vector<uint8_t> dim_order;
  // Absolute file offsets of the vectors' elements, when present.
  std::optional<uint64_t> sizes_offset;
};

// Where a Tensor table's data comes from, read from three fields without
// building a view (view_tensor decides t.data the same way): walks that
// care about a few kinds skip the other tensors cheaply.
TensorData tensor_data(const TableValue& tensor);
inline bool is_external(TensorData d) { return d == TensorData::kExternalConstant || d == TensorData::kExternalMutable; }

// Also reads a FlatTensor TensorLayout, whose fields (scalar_type, sizes,
// dim_order) have the same names; the Tensor-only fields read as absent.
// `file` is the file the program was decoded from: vector offsets are
// computed against it (decoded vectors are slices of it).
TensorView view_tensor(const TableValue& tensor, const Blob& file);

// Element size x product of sizes; nullopt when the scalar type is unknown,
// sizes are absent, longer than kMaxTensorRank or negative, or the product
// overflows uint64.
std::optional<uint64_t> view_nbytes(const TensorView& t);

// What is wrong with a tensor's (or a .ptd tensor layout's) type and shape,
// as the runtime's tensor parser would reject it.
struct ShapeProblem {
  enum Kind : uint8_t { kScalarType, kSizes, kDimOrder } kind;
  std::string message;  // e.g. "has negative sizes[1] = -3"
};
std::vector<ShapeProblem> shape_problems(const TensorView& t);

// "f32[2, 3]"-style text is left to callers; this gives "[2, 3]".
std::string shape_text(const std::vector<int64_t>& sizes);

// Calls fn(plan index, value index, the EValue's val table) for every EValue
// of every execution plan that holds a value (a null val is skipped).
void for_each_value(const TableValue& program,
                    const std::function<void(size_t, size_t, const TableValue&)>& fn);

// Calls fn(plan index, value index, tensor table) for every EValue of every
// execution plan that holds a Tensor.
void for_each_tensor(const TableValue& program,
                     const std::function<void(size_t, size_t, const TableValue&)>& fn);

// Calls fn(plan index, delegate index, delegate table, segment index) for
// every delegate whose processed data lives in a segment (location SEGMENT).
void for_each_segment_delegate(const TableValue& program,
                               const std::function<void(size_t, size_t, const TableValue&, uint64_t)>& fn);

// "execution_plan[p].values[v]"
std::string value_path(size_t plan, size_t value);

// File offset of a slice of `file`, or nullopt for an empty or foreign blob.
std::optional<uint64_t> offset_in_file(const Blob& slice, const Blob& file);

// Sets "dtype" (the scalar type's name, or null) and "shape" (the sizes, or
// null when absent or past kMaxTensorRank) of `t` on `j`, as inspect and
// the requirements print every tensor.
void set_dtype_shape(Json& j, const TensorView& t);

}  // namespace etpack
