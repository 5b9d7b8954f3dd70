#include "encode/repack.h"

#include <map>

#include "model/scalar_type.h"
#include "read/ptd_reader.h"
#include "read/pte_reader.h"

namespace etpack {

bool glob_match(const std::string& pattern, const std::string& text) {
  size_t p = 0, t = 0, star = std::string::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

namespace {

const TableDef& table_def(const char* name) { return *program_schema().find_table(name); }

struct ConstantTensor {
  TableValue* tensor;
  std::string path;
  uint64_t buffer;
};

// Every constant tensor (data_buffer_idx > 0, no allocation_info) that is not
// already external, with where it is.
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
      if (info.is_table() && info.table().get_uint("location") == 1) continue;  // already EXTERNAL
      out.push_back({&tensor, "execution_plan[" + std::to_string(p) + "].values[" + std::to_string(v) + "]", index});
    }
  }
  return out;
}

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
  if (dims.is_scalars())
    layout.dim_order.assign(dims.scalars().data(), dims.scalars().data() + dims.scalars().size());
  return layout;
}

Status externalize(TableValue& program, const ExternalizeOptions& options, NamedDataStore& store,
                   std::vector<MovedTensor>& moved) {
  Value& constant_buffer = program.at("constant_buffer");
  const uint64_t count = constant_buffer.is_items() ? constant_buffer.items().size() : 0;
  std::vector<ConstantTensor> tensors = constant_tensors(program, count);
  std::vector<bool> still_used(count, false);
  std::map<std::string, size_t> moved_index;
  bool any_moved = false;

  for (ConstantTensor& c : tensors) {
    TableValue& tensor = *c.tensor;
    std::vector<int64_t> sizes;
    TensorLayout layout = layout_of(tensor, sizes);
    auto nbytes = tensor_nbytes(layout.scalar_type, sizes);
    const Value& info = tensor.get("extra_tensor_info");
    std::string key = info.is_table() && info.table().get("fully_qualified_name").is_string()
                          ? info.table().get("fully_qualified_name").str()
                          : "constant." + std::to_string(c.buffer);
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
    ETP_TRY(store.add_named_data(key, storage.slice(0, *nbytes), options.alignment, options.tag, layout));

    Value& info_field = tensor.at("extra_tensor_info");
    if (!info_field.is_table()) info_field = Value::from_table(TableValue(&table_def("ExtraTensorInfo")));
    info_field.table().at("fully_qualified_name") = Value::from_string(key);
    info_field.table().set_uint("location", 1);  // EXTERNAL
    tensor.set_uint("data_buffer_idx", 0);       // ignored for EXTERNAL tensors
    any_moved = true;

    auto [it, fresh] = moved_index.emplace(key, moved.size());
    if (fresh) moved.push_back({key, *nbytes, {}});
    moved[it->second].paths.push_back(c.path);
  }
  if (!any_moved) return {};

  // Compact constant_buffer: keep the placeholder and what is still used.
  std::vector<uint64_t> new_index(count, 0);
  Value::Items kept;
  bool keeps_data = false;
  for (uint64_t i = 0; i < count; ++i) {
    if (i != 0 && !still_used[i]) continue;
    keeps_data = keeps_data || i != 0;
    new_index[i] = kept.size();
    kept.push_back(constant_buffer.items()[i]);
  }
  for (ConstantTensor& c : tensors) {
    TableValue& tensor = *c.tensor;
    uint64_t index = tensor.get_uint("data_buffer_idx");
    if (index != 0) tensor.set_uint("data_buffer_idx", new_index[index]);
  }
  constant_buffer = Value::from_items(keeps_data ? std::move(kept) : Value::Items{});
  return {};
}

}  // namespace

Result<RepackResult> repack(const FileSource& source, const RepackOptions& options) {
  ETP_ASSIGN(PteFile pte, deserialize_pte_binary(source.head, source.file));
  RepackResult result;
  NamedDataStore store;
  if (pte.named_data) ETP_TRY(store.merge_named_data_store(*pte.named_data));
  if (options.externalize) ETP_TRY(externalize(pte.program, *options.externalize, store, result.moved));
  for (const FileSource& ptd_source : options.merge) {
    ETP_ASSIGN(PtdFile ptd, deserialize_ptd(ptd_source.head, ptd_source.file));
    for (const auto& [key, entry] : ptd.payload.named_data) {
      ETP_TRY(store.add_named_data(key, ptd.payload.buffers[entry.buffer_index], entry.alignment, options.merge_tag,
                                   entry.tensor_layout));
      ++result.merged_entries;
    }
  }

  EmitterOutput emitter;
  emitter.program = std::move(pte.program);
  if (pte.mutable_data) {
    emitter.has_mutable_data = true;
    emitter.mutable_data = std::move(*pte.mutable_data);
  }
  NamedDataStoreOutput named = store.get_named_data_store_output();
  FlatTensorSerializer serializer(options.data_config);
  ETP_ASSIGN(result.artifacts, serialize_for_executorch(emitter, options.config, serializer, &named));
  return result;
}

}  // namespace etpack
