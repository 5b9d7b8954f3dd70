#include "encode/externalize.h"

#include "core/glob.h"
#include "model/scalar_type.h"

namespace etpack {

namespace {

const TableDef& table_def(const char* name) { return *program_schema().find_table(name); }

struct ConstantTensor {
  TableValue* tensor;
  std::string path;
  uint64_t buffer;
  TensorLayout layout;
  std::vector<int64_t> sizes;  // the same sizes, as tensor_nbytes wants them
};

TensorLayout layout_of(const TableValue& tensor, std::vector<int64_t>& sizes) {
  TensorLayout layout;
  layout.scalar_type = static_cast<int8_t>(tensor.get_int("scalar_type"));
  const Value& s = tensor.get("sizes");
  for (size_t i = 0; i < scalar_vector_length(s, BaseType::kInt); ++i) {
    int64_t d = scalar_vector_int(s, BaseType::kInt, i);
    sizes.push_back(d);
    layout.sizes.push_back(static_cast<int32_t>(d));
  }
  const Value& dims = tensor.get("dim_order");
  if (dims.is_scalars() && dims.scalars().size() > 0)
    layout.dim_order.assign(dims.scalars().data(), dims.scalars().data() + dims.scalars().size());
  return layout;
}

// Every constant tensor (data_buffer_idx in (0, buffer count), no
// allocation_info) that is not already EXTERNAL, with where it is.
std::vector<ConstantTensor> constant_tensors(TableValue& program, uint64_t buffer_count) {
  std::vector<ConstantTensor> out;
  Value& plans = program.at("execution_plan");
  if (!plans.is_items()) return out;
  for (size_t p = 0; p < plans.items().size(); ++p) {
    Value& values = plans.items()[p].table().at("values");
    if (!values.is_items()) continue;
    for (size_t v = 0; v < values.items().size(); ++v) {
      Value& val = values.items()[v].table().at("val");
      if (!val.is_table() || val.table().def->name != "Tensor") continue;
      TableValue& tensor = val.table();
      uint64_t index = tensor.get_uint("data_buffer_idx");
      if (index == 0 || index >= buffer_count || tensor.has("allocation_info")) continue;
      const Value& info = tensor.get("extra_tensor_info");
      if (info.is_table() && info.table().is("location", TensorDataLocation::EXTERNAL)) continue;  // already
      ConstantTensor c{&tensor, "execution_plan[" + std::to_string(p) + "].values[" + std::to_string(v) + "]", index, {}, {}};
      c.layout = layout_of(tensor, c.sizes);
      out.push_back(std::move(c));
    }
  }
  return out;
}

bool is_identity(const std::vector<uint8_t>& dim_order) {
  for (size_t i = 0; i < dim_order.size(); ++i)
    if (dim_order[i] != i) return false;
  return true;
}

// "Float.2x3", "Long.scalar", "Float.1x3x8x8.order0_2_3_1": the layout part
// of a generated key (the type's number when it has no name).
std::string layout_key_part(const TensorLayout& layout) {
  const char* name = scalar_type_name(layout.scalar_type);
  std::string out = name ? name : "type" + std::to_string(layout.scalar_type);
  out += ".";
  if (layout.sizes.empty()) out += "scalar";
  for (size_t i = 0; i < layout.sizes.size(); ++i) out += (i ? "x" : "") + std::to_string(layout.sizes[i]);
  if (!is_identity(layout.dim_order)) {
    out += ".order";
    for (size_t i = 0; i < layout.dim_order.size(); ++i) out += (i ? "_" : "") + std::to_string(layout.dim_order[i]);
  }
  return out;
}

std::string layout_text(const std::optional<TensorLayout>& layout) {
  if (!layout) return "no tensor_layout";
  return layout_key_part(*layout);
}

// The key of each tensor (see externalize.h): fqn, else by buffer, with the
// layout in the name when the buffer backs several layouts.
std::vector<std::string> keys_of(const std::vector<ConstantTensor>& tensors) {
  std::map<uint64_t, std::vector<TensorLayout>> layouts_of_buffer;
  for (const ConstantTensor& c : tensors) {
    std::vector<TensorLayout>& seen = layouts_of_buffer[c.buffer];
    bool known = false;
    for (const TensorLayout& l : seen) known = known || l == c.layout;
    if (!known) seen.push_back(c.layout);
  }
  std::vector<std::string> keys;
  keys.reserve(tensors.size());
  for (const ConstantTensor& c : tensors) {
    const Value& info = c.tensor->get("extra_tensor_info");
    if (info.is_table() && info.table().get("fully_qualified_name").is_string()) {
      keys.push_back(info.table().get("fully_qualified_name").str());
      continue;
    }
    std::string key = "constant." + std::to_string(c.buffer);
    if (layouts_of_buffer[c.buffer].size() > 1) key += "." + layout_key_part(c.layout);
    keys.push_back(std::move(key));
  }
  return keys;
}

}  // namespace

Status add_keyed_data(NamedDataStore& store, KeyLayouts& layouts, const std::string& key, const Blob& data,
                      uint64_t alignment, const std::optional<std::string>& tag,
                      const std::optional<TensorLayout>& layout) {
  auto known = layouts.find(key);
  if (known != layouts.end() && known->second != layout)
    return make_error(ErrorCode::kLayoutConflict, "the key '" + key + "' would stand for two tensor layouts, " +
                                                      layout_text(known->second) + " and " + layout_text(layout) +
                                                      "; the runtime checks one layout per key");
  ETP_TRY(store.add_named_data(key, data, alignment, tag, layout));
  layouts.emplace(key, layout);
  return {};
}

Status externalize_constants(TableValue& program, const ExternalizeOptions& options, NamedDataStore& store,
                             KeyLayouts& layouts, std::vector<MovedTensor>& moved) {
  Value& constant_buffer = program.at("constant_buffer");
  const uint64_t count = constant_buffer.is_items() ? constant_buffer.items().size() : 0;
  std::vector<ConstantTensor> tensors = constant_tensors(program, count);
  const std::vector<std::string> keys = keys_of(tensors);
  std::vector<bool> still_used(count, false);
  std::map<std::string, size_t> moved_index;
  bool any_moved = false;

  for (size_t i = 0; i < tensors.size(); ++i) {
    ConstantTensor& c = tensors[i];
    const std::string& key = keys[i];
    auto nbytes = tensor_nbytes(c.layout.scalar_type, c.sizes);
    bool selected = nbytes.has_value() && *nbytes >= options.min_bytes;
    if (selected && !options.patterns.empty()) {
      selected = false;
      for (const std::string& pattern : options.patterns) selected = selected || glob_match(pattern, key);
    }
    if (!selected) {
      still_used[c.buffer] = true;
      continue;
    }
    const Value& storage_value = constant_buffer.items()[c.buffer].table().get("storage");
    Blob storage = storage_value.is_scalars() ? storage_value.scalars() : Blob();
    if (*nbytes > storage.size())
      return make_error(ErrorCode::kMalformedFile, c.path + " needs " + std::to_string(*nbytes) + " bytes but constant " +
                                                       std::to_string(c.buffer) + " holds " +
                                                       std::to_string(storage.size()));
    // Only the tensor's own bytes move; the slice keeps referring to the source.
    Status added = add_keyed_data(store, layouts, key, storage.slice(0, *nbytes), options.alignment, options.tag, c.layout);
    if (!added.ok()) {
      Error e = added.take_error();
      return make_error(e.code, e.message + " (externalizing " + c.path + ")");
    }

    TableValue& tensor = *c.tensor;
    Value& info_field = tensor.at("extra_tensor_info");
    if (!info_field.is_table()) info_field = Value::from_table(TableValue(&table_def("ExtraTensorInfo")));
    info_field.table().at("fully_qualified_name") = Value::from_string(key);
    info_field.table().set("location", TensorDataLocation::EXTERNAL);
    tensor.set_uint("data_buffer_idx", 0);       // ignored for EXTERNAL tensors
    any_moved = true;

    auto [it, fresh] = moved_index.emplace(key, moved.size());
    if (fresh) moved.push_back({key, *nbytes, {}});
    moved[it->second].paths.push_back(c.path);
  }
  if (!any_moved) return {};

  // Compact constant_buffer: entry 0 (the placeholder the runtime needs:
  // an empty constant_segment.offsets makes Program::load fail on its
  // default build) and whatever is still used.
  std::vector<uint64_t> new_index(count, 0);
  Value::Items kept;
  for (uint64_t i = 0; i < count; ++i) {
    if (i != 0 && !still_used[i]) continue;
    new_index[i] = kept.size();
    kept.push_back(constant_buffer.items()[i]);
  }
  for (ConstantTensor& c : tensors) {
    TableValue& tensor = *c.tensor;
    uint64_t index = tensor.get_uint("data_buffer_idx");
    if (index != 0) tensor.set_uint("data_buffer_idx", new_index[index]);
  }
  constant_buffer = Value::from_items(std::move(kept));
  return {};
}

}  // namespace etpack
