#include "read/program_tensors.h"

#include "model/scalar_type.h"

namespace etpack {

std::optional<uint64_t> offset_in_file(const Blob& slice, const Blob& file) {
  if (slice.data() == nullptr || file.data() == nullptr) return std::nullopt;
  auto begin = reinterpret_cast<uintptr_t>(file.data()), at = reinterpret_cast<uintptr_t>(slice.data());
  if (at < begin || at - begin > file.size() || slice.size() > file.size() - (at - begin)) return std::nullopt;
  return static_cast<uint64_t>(at - begin);
}

TensorView view_tensor(const TableValue& tensor, const Blob& file) {
  TensorView t;
  t.scalar_type = tensor.get_int("scalar_type");
  t.storage_offset = tensor.get_int("storage_offset");
  t.shape_dynamism = tensor.get_int("shape_dynamism");
  t.data_buffer_idx = tensor.get_uint("data_buffer_idx");
  t.has_allocation_info = tensor.get("allocation_info").is_table();
  const Value& sizes = tensor.get("sizes");
  if (sizes.is_scalars()) {
    size_t n = scalar_vector_length(sizes, BaseType::kInt);
    t.rank = n;
    t.sizes_offset = offset_in_file(sizes.scalars(), file);
    for (size_t i = 0; i < n && i < kMaxTensorRank; ++i) t.sizes.push_back(scalar_vector_int(sizes, BaseType::kInt, i));
  }
  const Value& dim_order = tensor.get("dim_order");
  if (dim_order.is_scalars()) {
    size_t n = scalar_vector_length(dim_order, BaseType::kUByte);
    t.dim_order_length = n;
    for (size_t i = 0; i < n && i < kMaxTensorRank; ++i)
      t.dim_order.push_back(static_cast<uint8_t>(scalar_vector_uint(dim_order, BaseType::kUByte, i)));
  }
  const Value& extra = tensor.get("extra_tensor_info");
  if (extra.is_table()) {
    const Value& name = extra.table().get("fully_qualified_name");
    if (name.is_string()) t.fqn = name.str();
  }
  t.data = tensor_data(tensor);
  return t;
}

TensorData tensor_data(const TableValue& tensor) {
  const bool planned = tensor.get("allocation_info").is_table();
  const Value& extra = tensor.get("extra_tensor_info");
  if (extra.is_table() && extra.table().get_int("location") == 1)
    return planned ? TensorData::kExternalMutable : TensorData::kExternalConstant;
  if (tensor.get_uint("data_buffer_idx") > 0) return planned ? TensorData::kMutable : TensorData::kConstant;
  return planned ? TensorData::kPlanned : TensorData::kNone;
}

std::optional<uint64_t> view_nbytes(const TensorView& t) {
  if (!t.rank || *t.rank > kMaxTensorRank) return std::nullopt;
  return tensor_nbytes(t.scalar_type, t.sizes);
}

std::vector<ShapeProblem> shape_problems(const TensorView& t) {
  std::vector<ShapeProblem> out;
  if (scalar_type_name(t.scalar_type) == nullptr)
    out.push_back({ShapeProblem::kScalarType, "has scalar_type " + std::to_string(t.scalar_type) + ", not a ScalarType"});
  if (!t.rank) {
    out.push_back({ShapeProblem::kSizes, "has no sizes"});
    return out;
  }
  if (*t.rank > kMaxTensorRank) {
    out.push_back({ShapeProblem::kSizes, "has rank " + std::to_string(*t.rank) + ", above the runtime's limit of " +
                                             std::to_string(kMaxTensorRank)});
    return out;
  }
  bool negative = false;
  for (size_t i = 0; i < t.sizes.size() && !negative; ++i) {
    if (t.sizes[i] < 0) {
      negative = true;
      out.push_back({ShapeProblem::kSizes, "has negative sizes[" + std::to_string(i) + "] = " + std::to_string(t.sizes[i])});
    }
  }
  if (!negative && scalar_type_name(t.scalar_type) != nullptr && !view_nbytes(t))
    out.push_back({ShapeProblem::kSizes, "has sizes " + shape_text(t.sizes) + " whose byte size overflows 64 bits"});
  if (!t.dim_order_length || *t.dim_order_length != *t.rank) {
    out.push_back({ShapeProblem::kDimOrder,
                   "has " + (t.dim_order_length ? std::to_string(*t.dim_order_length) + " dim_order entries" : std::string("no dim_order")) +
                       " for rank " + std::to_string(*t.rank)});
    return out;
  }
  std::vector<bool> seen(t.dim_order.size(), false);
  for (uint8_t d : t.dim_order) {
    if (d >= seen.size() || seen[d]) {
      out.push_back({ShapeProblem::kDimOrder, "has dim_order " + shape_text(std::vector<int64_t>(t.dim_order.begin(), t.dim_order.end())) +
                                                  ", not a permutation of 0.." + std::to_string(*t.rank - 1)});
      break;
    }
    seen[d] = true;
  }
  return out;
}

std::string shape_text(const std::vector<int64_t>& sizes) {
  std::string out = "[";
  for (size_t i = 0; i < sizes.size(); ++i) out += (i ? ", " : "") + std::to_string(sizes[i]);
  return out + "]";
}

void for_each_segment_delegate(const TableValue& program,
                               const std::function<void(size_t, size_t, const TableValue&, uint64_t)>& fn) {
  const Value& plans = program.get("execution_plan");
  if (!plans.is_items()) return;
  for (size_t p = 0; p < plans.items().size(); ++p) {
    const Value& delegates = plans.items()[p].table().get("delegates");
    if (!delegates.is_items()) continue;
    for (size_t d = 0; d < delegates.items().size(); ++d) {
      const TableValue& delegate = delegates.items()[d].table();
      const Value& ref = delegate.get("processed");
      if (ref.is_table() && ref.table().get_uint("location") == 1) fn(p, d, delegate, ref.table().get_uint("index"));
    }
  }
}

void for_each_value(const TableValue& program,
                    const std::function<void(size_t, size_t, const TableValue&)>& fn) {
  const Value& plans = program.get("execution_plan");
  if (!plans.is_items()) return;
  for (size_t p = 0; p < plans.items().size(); ++p) {
    const Value& values = plans.items()[p].table().get("values");
    if (!values.is_items()) continue;
    for (size_t v = 0; v < values.items().size(); ++v) {
      const Value& val = values.items()[v].table().get("val");
      if (val.is_table()) fn(p, v, val.table());
    }
  }
}

void for_each_tensor(const TableValue& program,
                     const std::function<void(size_t, size_t, const TableValue&)>& fn) {
  for_each_value(program, [&](size_t p, size_t v, const TableValue& val) {
    if (val.def->name == "Tensor") fn(p, v, val);
  });
}

std::string value_path(size_t plan, size_t value) {
  return "execution_plan[" + std::to_string(plan) + "].values[" + std::to_string(value) + "]";
}

void set_dtype_shape(Json& j, const TensorView& t) {
  const char* dtype = scalar_type_name(t.scalar_type);
  j.set("dtype", dtype ? Json::string(dtype) : Json::null());
  Json shape = Json::null();
  if (t.rank && *t.rank <= kMaxTensorRank) {
    shape = Json::array();
    for (int64_t s : t.sizes) shape.push(Json::integer(s));
  }
  j.set("shape", std::move(shape));
}

}  // namespace etpack
