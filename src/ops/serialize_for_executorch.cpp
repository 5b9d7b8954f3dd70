#include "ops/serialize_for_executorch.h"

#include <unordered_map>

namespace etpack {

std::vector<std::pair<std::string, TensorLayout>> external_tensor_layouts(const TableValue& program) {
  std::vector<std::pair<std::string, TensorLayout>> out;
  std::unordered_map<std::string, size_t> seen;
  const Value& plans = program.get("execution_plan");
  if (!plans.is_items()) return out;
  for (const Value& plan : plans.items()) {
    const Value& values = plan.table().get("values");
    if (!values.is_items()) continue;
    for (const Value& evalue : values.items()) {
      const Value& val = evalue.table().get("val");
      if (!val.is_table() || val.table().def->name != "Tensor") continue;
      const TableValue& tensor = val.table();
      const Value& info = tensor.get("extra_tensor_info");
      if (!info.is_table()) continue;
      const Value& fqn = info.table().get("fully_qualified_name");
      if (!fqn.is_string() || !info.table().is("location", TensorDataLocation::EXTERNAL)) continue;
      TensorLayout layout;
      layout.scalar_type = static_cast<int8_t>(tensor.get_int("scalar_type"));
      const Value& sizes = tensor.get("sizes");
      for (size_t i = 0; i < scalar_vector_length(sizes, BaseType::kInt); ++i)
        layout.sizes.push_back(static_cast<int32_t>(scalar_vector_int(sizes, BaseType::kInt, i)));
      const Value& dim_order = tensor.get("dim_order");
      if (dim_order.is_scalars())
        layout.dim_order.assign(dim_order.scalars().data(), dim_order.scalars().data() + dim_order.scalars().size());
      if (seen.emplace(fqn.str(), out.size()).second) out.emplace_back(fqn.str(), std::move(layout));
    }
  }
  return out;
}

Result<SerializedArtifacts> serialize_for_executorch(const EmitterOutput& emitter, const PteConfig& config,
                                                     DataSerializer& data_serializer,
                                                     const NamedDataStoreOutput* store, const EncodedPrefix* plans) {
  if (plans != nullptr && !emitter.external_constant_map.empty())
    return make_error(ErrorCode::kInternal, "serialize_for_executorch: external constants need the plans in the model");
  static const NamedDataStoreOutput kEmptyStore;
  const NamedDataStoreOutput& named = store != nullptr ? *store : kEmptyStore;

  // The PTE keeps the store's untagged entries; tagged ones go to data files.
  const NamedDataStoreOutput* pte_named = nullptr;
  NamedDataStoreOutput pte_only;
  if (!named.buffers.empty() && !named.pte_data.empty()) {
    pte_only.buffers = named.buffers;  // Blob references only
    pte_only.pte_data = named.pte_data;
    pte_named = &pte_only;
  }
  SerializedArtifacts out;
  ETP_ASSIGN(out.pte, serialize_pte_binary(emitter.program, emitter.has_mutable_data ? &emitter.mutable_data : nullptr,
                                           pte_named, config, plans));

  if (emitter.external_constant_map.empty() && named.external_data.empty()) return out;

  const NamedDataStoreOutput* source = &named;
  NamedDataStoreOutput merged;
  if (!emitter.external_constant_map.empty()) {
    auto layouts = external_tensor_layouts(emitter.program);
    NamedDataStore fresh;
    for (const auto& [tag, constants] : emitter.external_constant_map) {
      for (const auto& [fqn, index] : constants) {
        const TensorLayout* layout = nullptr;
        for (const auto& [name, l] : layouts)
          if (name == fqn) layout = &l;
        if (layout == nullptr)
          return make_error(ErrorCode::kExternalTensorNotFound,
                            "external constant '" + fqn + "' (tag '" + tag +
                                "') has no tensor in the program with that fully_qualified_name and location EXTERNAL");
        if (index >= emitter.external_constant_buffer.size())
          return make_error(ErrorCode::kInvalidArgument, "external constant '" + fqn + "' refers to buffer " +
                                                             std::to_string(index) + " of " +
                                                             std::to_string(emitter.external_constant_buffer.size()));
        ETP_TRY(fresh.add_named_data(fqn, emitter.external_constant_buffer[index], 1, tag, *layout));
      }
    }
    ETP_TRY(fresh.merge_named_data_store(named));
    merged = fresh.get_named_data_store_output();
    source = &merged;
  }

  for (const auto& [tag, entries] : source->external_data) {
    DataPayload payload;
    payload.buffers = source->buffers;  // references; the serializer picks what entries use
    payload.named_data = entries;
    ETP_ASSIGN(Cord file, data_serializer.serialize(payload));
    out.ptd.emplace_back(tag, std::move(file));
  }
  return out;
}

}  // namespace etpack
