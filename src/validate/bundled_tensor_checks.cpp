#include "validate/bundled_tensor_checks.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "model/scalar_type.h"
#include "validate/bundled_checks.h"

namespace etpack {
namespace bundled {
namespace {

constexpr size_t kMaxRank = 16;  // the runtime's kTensorDimensionLimit: no method tensor has more dims

// The vector's elements widened (scalar_vector_int keeps dim_order's ubyte unsigned).
std::vector<int64_t> ints(const Value& v, BaseType element) {
  std::vector<int64_t> out;
  const size_t n = scalar_vector_length(v, element);
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(scalar_vector_int(v, element, i));
  return out;
}

std::string list(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// Whether the first `rank` entries of `order` are a permutation of
// 0..rank-1 (the runtime's validate_dim_order).
bool permutation_prefix(const std::vector<int64_t>& order, size_t rank) {
  if (order.size() < rank) return false;
  std::vector<bool> used(rank, false);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t d = order[i];
    if (d < 0 || d >= static_cast<int64_t>(rank) || used[static_cast<size_t>(d)]) return false;
    used[static_cast<size_t>(d)] = true;
  }
  return true;
}

// The strides `order` gives `sizes` (the innermost dim last in `order`),
// as the runtime's dim_order_to_stride computes them. Unsigned arithmetic:
// an absurd shape wraps instead of overflowing (the runtime's int32 strides
// would not be meaningful there either).
std::vector<uint64_t> strides_of(const std::vector<int64_t>& sizes, const std::vector<int64_t>& order) {
  const size_t rank = sizes.size();
  std::vector<uint64_t> strides(rank, 0);
  if (rank == 0) return strides;
  uint64_t stride = 1;
  for (size_t i = rank; i-- > 0;) {
    const size_t dim = static_cast<size_t>(order[i]);
    strides[dim] = stride;
    stride *= static_cast<uint64_t>(sizes[dim]);
  }
  return strides;
}

// The element count, or nullopt when it overflows (the runtime's safe_numel refuses).
std::optional<uint64_t> numel(const std::vector<int64_t>& sizes) {
  uint64_t n = 1;
  for (int64_t s : sizes) {
    if (s < 0) return std::nullopt;
    if (s != 0 && n > UINT64_MAX / static_cast<uint64_t>(s)) return std::nullopt;
    n *= static_cast<uint64_t>(s);
  }
  return n;
}

std::string capacity(const std::vector<int64_t>& sizes) {
  const auto n = numel(sizes);
  return n ? std::to_string(*n) : std::string("too many");
}

class TensorCheck {
 public:
  TensorCheck(const TableValue& t, Role role, const Where& where, Reporter& report)
      : t_(t), role_(role), where_(where), report_(report) {}

  void run(const TableValue* method_tensor) {
    // impl_like reads all three vectors through their (null) offsets.
    for (const char* field : {"sizes", "data", "dim_order"}) {
      if (t_.get(field).absent()) {
        report_.error(finding::kMissingField, where_.said + " is a tensor without " + field + " (the runtime reads it unchecked)",
                      where_.path + ".val." + field);
        return;
      }
    }
    scalar_type_ = t_.get_int("scalar_type");
    sizes_ = ints(t_.get("sizes"), BaseType::kInt);
    dim_order_ = ints(t_.get("dim_order"), BaseType::kUByte);
    type_name_ = scalar_type_name(scalar_type_);
    // TensorImpl's constructor aborts on a scalar type outside the runtime's
    // list (isValid) and on a negative size (compute_numel).
    if (type_name_ == nullptr)
      report_.error(finding::kBundleTensorInvalid, where_.said + " has unknown scalar type " + std::to_string(scalar_type_),
                    where_.path + ".val.scalar_type");
    if (sizes_.size() > kMaxRank) {
      report_.error(finding::kBundleTensorInvalid, where_.said + " has rank " + std::to_string(sizes_.size()) + " > 16", where_.path + ".val.sizes");
      return;
    }
    for (int64_t s : sizes_) {
      if (s < 0) {
        report_.error(finding::kBundleTensorInvalid, where_.said + " has a negative size in " + list(sizes_), where_.path + ".val.sizes");
        return;
      }
    }
    const bool layout = dim_order();
    data_size();
    if (method_tensor != nullptr) against(*method_tensor, layout);
  }

 private:
  // Returns whether the dim order gives a layout the runtime uses.
  bool dim_order() {
    const size_t rank = sizes_.size();
    const std::string at = where_.path + ".val.dim_order";
    if (role_ == Role::kInput) {
      // set_input never reads the source's dim order: the bytes are copied
      // (or shared) as they are, into the method's own layout.
      if (dim_order_.size() == rank && permutation_prefix(dim_order_, rank)) return true;
      report_.warning(finding::kBundleDimOrderIgnored, where_.said + " has dim_order " + list(dim_order_) + ", not a permutation of its " +
                                                           std::to_string(rank) + " dims: the runtime never reads an input's dim order",
                      at);
      return false;
    }
    // verify_method_outputs turns the first `rank` entries into strides
    // (dim_order_to_stride) and aborts when they are no permutation.
    if (dim_order_.size() < rank) {
      report_.error(finding::kBundleTensorInvalid, where_.said + " has dim_order " + list(dim_order_) + ", shorter than its " +
                                                       std::to_string(rank) + " dims: the runtime reads past its end", at);
      return false;
    }
    if (!permutation_prefix(dim_order_, rank)) {
      report_.error(finding::kBundleTensorInvalid, where_.said + " has dim_order " + list(dim_order_) + ", not a permutation of its " +
                                                       std::to_string(rank) + " dims: verify_method_outputs aborts", at);
      return false;
    }
    if (dim_order_.size() > rank)
      report_.warning(finding::kBundleDimOrderIgnored, where_.said + " has dim_order " + list(dim_order_) + ": the runtime never reads the " +
                                                           std::to_string(dim_order_.size() - rank) + " entries past its rank", at);
    return true;
  }

  // set_input copies numel * element size bytes from the data (the compare
  // reads as many): fewer is a read out of the vector, more is never read.
  void data_size() {
    if (type_name_ == nullptr) return;
    const uint64_t have = t_.get("data").scalars().size();
    const std::optional<uint64_t> need = tensor_nbytes(scalar_type_, sizes_);
    const std::string at = where_.path + ".val.data";
    if (!need) {
      report_.error(finding::kBundleTensorInvalid, where_.said + " has sizes " + list(sizes_) + " whose byte size overflows", where_.path + ".val.sizes");
    } else if (have < *need) {
      report_.error(finding::kBundleTensorDataShort, where_.said + " holds " + std::to_string(have) + " data bytes; " + type_name_ + " " +
                                                         list(sizes_) + " needs " + std::to_string(*need), at);
    } else if (have > *need) {
      report_.warning(finding::kBundleTensorDataLong, where_.said + " holds " + std::to_string(have) + " data bytes; " + type_name_ + " " +
                                                          list(sizes_) + " needs only " + std::to_string(*need), at);
    }
  }

  void against(const TableValue& method_tensor, bool layout) {
    // set_input refuses another scalar type; tensors_are_close says "not
    // close" for one (the case can never pass).
    const int64_t method_type = method_tensor.get_int("scalar_type");
    if (method_type != scalar_type_) {
      const char* method_name = scalar_type_name(method_type);
      report_.error(finding::kBundleTensorDtype, where_.said + " is " + (type_name_ ? type_name_ : std::to_string(scalar_type_)) +
                                                     "; the method's tensor is " + (method_name ? method_name : std::to_string(method_type)),
                    where_.path + ".val.scalar_type");
    }
    // The method's vectors are read only when as long as this tensor's rank
    // (at most 16): one value never costs more than its own bytes.
    const Value& sizes_field = method_tensor.get("sizes");
    const Value& order_field = method_tensor.get("dim_order");
    const bool same_rank = scalar_vector_length(sizes_field, BaseType::kInt) == sizes_.size();
    const std::vector<int64_t> method_sizes = same_rank ? ints(sizes_field, BaseType::kInt) : std::vector<int64_t>();
    const std::vector<int64_t> method_order =
        scalar_vector_length(order_field, BaseType::kUByte) == sizes_.size() ? ints(order_field, BaseType::kUByte) : std::vector<int64_t>();
    // The method's tensor is resized to the bundled sizes: the rank must be
    // the same; a STATIC tensor keeps its sizes; a DYNAMIC_BOUND one (and a
    // DYNAMIC_UNBOUND one, treated as bounded) takes any sizes of at most as
    // many elements as planned. An expected output of other sizes never
    // compares equal.
    const int64_t dynamism = method_tensor.get_int("shape_dynamism");
    bool fits = same_rank;
    if (fits && dynamism == 0) {
      fits = method_sizes == sizes_;
    } else if (fits && !sizes_.empty()) {
      const auto n = numel(sizes_), bound = numel(method_sizes);
      fits = n && bound && *n <= *bound;
    }
    if (!fits) {
      const std::string theirs = same_rank ? list(method_sizes) : "has rank " + std::to_string(scalar_vector_length(sizes_field, BaseType::kInt));
      report_.error(finding::kBundleTensorShape, where_.said + " has sizes " + list(sizes_) + "; the method's tensor " + theirs +
                                                     (dynamism != 0 && same_rank ? ", dynamic: the same rank and at most " + capacity(method_sizes) + " elements" : std::string()),
                    where_.path + ".val.sizes");
      return;
    }
    if (!layout || method_order.size() != sizes_.size() || !permutation_prefix(method_order, sizes_.size())) return;
    const std::vector<int64_t> order(dim_order_.begin(), dim_order_.begin() + static_cast<std::ptrdiff_t>(sizes_.size()));
    if (order == method_order) return;
    const std::vector<uint64_t> mine = strides_of(sizes_, order), theirs = strides_of(sizes_, method_order);
    bool same = true;
    if (role_ == Role::kInput) {
      // The bytes land in the method's layout: the same values only where
      // every dim longer than 1 has the same stride (or there are none).
      const auto n = numel(sizes_);
      for (size_t i = 0; same && n && *n > 0 && i < sizes_.size(); ++i) same = sizes_[i] <= 1 || mine[i] == theirs[i];
    } else {
      same = mine == theirs;  // verify_method_outputs aborts when the strides differ
    }
    if (same) return;
    report_.error(finding::kBundleTensorShape,
                  where_.said + " has dim_order " + list(order) + "; the method's tensor " + list(method_order) +
                      (role_ == Role::kInput ? ": set_input copies the bytes into the method's layout, so the values land elsewhere"
                                             : ": verify_method_outputs aborts on other strides"),
                  where_.path + ".val.dim_order");
  }

  const TableValue& t_;
  const Role role_;
  const Where& where_;
  Reporter& report_;
  int64_t scalar_type_ = 0;
  const char* type_name_ = nullptr;
  std::vector<int64_t> sizes_;
  std::vector<int64_t> dim_order_;
};

}  // namespace

void check_tensor(const TableValue& tensor, const TableValue* method_tensor, Role role, const Where& where, Reporter& report) {
  TensorCheck(tensor, role, where, report).run(method_tensor);
}

}  // namespace bundled
}  // namespace etpack
