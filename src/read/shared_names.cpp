#include "read/shared_names.h"

#include <unordered_map>

#include "model/scalar_type.h"
#include "read/program_tensors.h"
#include "read/safetensors_reader.h"

namespace etpack {

std::optional<uint64_t> NamedTensor::nbytes() const { return tensor_nbytes(scalar_type, sizes); }

std::vector<NamedTensor> named_tensors(const TableValue& program, const Blob& file, bool include_unnamed) {
  std::vector<NamedTensor> out;
  for_each_tensor(program, [&](size_t p, size_t v, const TableValue& tensor) {
    const TensorData data = tensor_data(tensor);  // most tensors are planned: no view for them
    if (!is_external(data) && data != TensorData::kConstant) return;
    TensorView view = view_tensor(tensor, file);
    const bool external = view.data == TensorData::kExternalConstant || view.data == TensorData::kExternalMutable;
    if (!external && view.data != TensorData::kConstant) return;  // mutable buffers and planned tensors carry no weights
    if (!view.fqn && !(include_unnamed && !external)) return;
    NamedTensor t;
    t.has_name = view.fqn.has_value();
    if (view.fqn) t.name = *view.fqn;
    t.path = value_path(p, v);
    t.scalar_type = view.scalar_type;
    t.sizes = std::move(view.sizes);
    t.dim_order = std::move(view.dim_order);
    t.external = external;
    t.data_buffer_idx = view.data_buffer_idx;
    out.push_back(std::move(t));
  });
  return out;
}

std::string layout_text(int64_t scalar_type, const std::vector<int64_t>& sizes, const std::vector<uint8_t>& dim_order) {
  const char* type = scalar_type_name(scalar_type);
  std::string out = type ? type : "ScalarType " + std::to_string(scalar_type);
  out += shape_text(sizes);
  bool identity = true;
  for (size_t i = 0; i < dim_order.size(); ++i) identity = identity && dim_order[i] == i;
  if (!identity) {
    out += " dim_order [";
    for (size_t i = 0; i < dim_order.size(); ++i) out += (i ? ", " : "") + std::to_string(dim_order[i]);
    out += "]";
  }
  return out;
}

std::vector<SharedNameConflict> shared_name_conflicts(const std::vector<NamedTensor>& tensors) {
  std::unordered_map<std::string, size_t> first_of;  // name -> index of its first tensor
  std::unordered_map<std::string, size_t> conflict_of;  // name -> index into out
  std::vector<SharedNameConflict> out;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const NamedTensor& t = tensors[i];
    if (!t.has_name) continue;
    auto [it, fresh] = first_of.emplace(t.name, i);
    if (fresh || tensors[it->second].same_layout(t)) continue;
    auto [c, added] = conflict_of.emplace(t.name, out.size());
    if (added) {
      const NamedTensor& first = tensors[it->second];
      out.push_back({t.name, {it->second}, escaped_name(t.name) + " is " + layout_text(first.scalar_type, first.sizes, first.dim_order) + " at " + first.path});
    }
    SharedNameConflict& conflict = out[c->second];
    conflict.tensors.push_back(i);
    conflict.message += " and " + layout_text(t.scalar_type, t.sizes, t.dim_order) + " at " + t.path;
  }
  return out;
}

}  // namespace etpack
