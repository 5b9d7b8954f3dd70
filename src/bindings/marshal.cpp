#include "bindings/marshal.h"

namespace etpack::bindings {

Json blob_marker(size_t index) {
  Json j = Json::object();
  j.set(std::string(1, '\0') + "blob", Json::unsigned_integer(index));
  return j;
}

Result<TensorLayout> layout_from_json(const Json& j) {
  TensorLayout l;
  const Json* st = j.find("scalar_type");
  auto type = st ? st->as_int64() : std::nullopt;
  if (!type || *type < -128 || *type > 127) return make_error(ErrorCode::kInvalidArgument, "tensor layout needs an integer scalar_type");
  l.scalar_type = static_cast<int8_t>(*type);
  if (const Json* sizes = j.find("sizes"); sizes && sizes->is_array())
    for (const Json& s : sizes->items()) {
      auto v = s.as_int64();
      if (!v || *v < INT32_MIN || *v > INT32_MAX) return make_error(ErrorCode::kInvalidArgument, "tensor layout sizes must be int32");
      l.sizes.push_back(static_cast<int32_t>(*v));
    }
  if (const Json* dims = j.find("dim_order"); dims && dims->is_array())
    for (const Json& d : dims->items()) {
      auto v = d.as_uint64();
      if (!v || *v > 255) return make_error(ErrorCode::kInvalidArgument, "tensor layout dim_order must be uint8");
      l.dim_order.push_back(static_cast<uint8_t>(*v));
    }
  return l;
}

Json layout_to_json(const std::optional<TensorLayout>& layout) {
  if (!layout) return Json::null();
  Json j = Json::object();
  j.set("scalar_type", Json::integer(layout->scalar_type));
  Json sizes = Json::array();
  for (int32_t s : layout->sizes) sizes.push(Json::integer(s));
  Json dims = Json::array();
  for (uint8_t d : layout->dim_order) dims.push(Json::integer(d));
  j.set("sizes", std::move(sizes));
  j.set("dim_order", std::move(dims));
  return j;
}

Result<EntryMap> entries_from_json(const Json& j) {
  EntryMap out;
  if (!j.is_object()) return make_error(ErrorCode::kInvalidArgument, "named data entries must be an object");
  for (const auto& [key, e] : j.members()) {
    DataEntry entry;
    auto index = e.find("buffer_index") ? e.find("buffer_index")->as_uint64() : std::nullopt;
    auto alignment = e.find("alignment") ? e.find("alignment")->as_uint64() : std::optional<uint64_t>(1);
    if (!index || *index > UINT32_MAX) return make_error(ErrorCode::kInvalidArgument, "entry '" + key + "' needs a bufferIndex");
    if (!alignment) return make_error(ErrorCode::kInvalidArgument, "entry '" + key + "' has a bad alignment");
    entry.buffer_index = static_cast<uint32_t>(*index);
    entry.alignment = *alignment;
    const Json* layout = e.find("tensor_layout");
    if (layout && !layout->is_null()) {
      ETP_ASSIGN(TensorLayout l, layout_from_json(*layout));
      entry.tensor_layout = std::move(l);
    }
    out.emplace_back(key, std::move(entry));
  }
  return out;
}

Json entries_to_json(const EntryMap& entries) {
  Json out = Json::object();
  for (const auto& [key, e] : entries) {
    Json j = Json::object();
    j.set("buffer_index", Json::unsigned_integer(e.buffer_index));
    j.set("alignment", Json::unsigned_integer(e.alignment));
    j.set("tensor_layout", layout_to_json(e.tensor_layout));
    out.set(key, std::move(j));
  }
  return out;
}

Result<NamedDataStoreOutput> store_output_from_json(const Json& j) {
  NamedDataStoreOutput out;
  const Json* buffers = j.find("buffers");
  if (buffers == nullptr || !buffers->is_array()) return make_error(ErrorCode::kInvalidArgument, "store output needs buffers");
  for (const Json& b : buffers->items()) {
    ETP_ASSIGN(Blob blob, blob_from_json(b));
    out.buffers.push_back(std::move(blob));
  }
  if (const Json* pte = j.find("pte_data")) {
    ETP_ASSIGN(out.pte_data, entries_from_json(*pte));
  }
  if (const Json* ext = j.find("external_data"); ext && ext->is_object()) {
    for (const auto& [tag, entries] : ext->members()) {
      ETP_ASSIGN(EntryMap m, entries_from_json(entries));
      out.external_data.emplace_back(tag, std::move(m));
    }
  }
  for (const auto& [key, e] : out.pte_data)
    if (e.buffer_index >= out.buffers.size())
      return make_error(ErrorCode::kInvalidArgument, "entry '" + key + "' refers to buffer " + std::to_string(e.buffer_index) +
                                                         " of " + std::to_string(out.buffers.size()));
  for (const auto& [tag, entries] : out.external_data)
    for (const auto& [key, e] : entries)
      if (e.buffer_index >= out.buffers.size())
        return make_error(ErrorCode::kInvalidArgument, "entry '" + key + "' (tag '" + tag + "') refers to buffer " +
                                                           std::to_string(e.buffer_index) + " of " +
                                                           std::to_string(out.buffers.size()));
  return out;
}

Json store_output_to_json(const NamedDataStoreOutput& store, Output& out) {
  Json j = Json::object();
  Json buffers = Json::array();
  for (const Blob& b : store.buffers) buffers.push(blob_marker(out.add_blob(b)));
  j.set("buffers", std::move(buffers));
  j.set("pte_data", entries_to_json(store.pte_data));
  Json ext = Json::object();
  for (const auto& [tag, entries] : store.external_data) ext.set(tag, entries_to_json(entries));
  j.set("external_data", std::move(ext));
  return j;
}

Result<PteConfig> pte_config_from_json(const Json* j) {
  PteConfig c;
  if (j == nullptr || j->is_null()) return c;
  auto positive = [](const Json* v, const char* name) -> Result<std::optional<uint64_t>> {
    if (v == nullptr || v->is_null()) return std::optional<uint64_t>();
    auto n = v->as_uint64();
    if (!n) return make_error(ErrorCode::kInvalidArgument, std::string(name) + " must be a non-negative integer, got " + write_json(*v));
    return std::optional<uint64_t>(*n);
  };
  if (const Json* v = j->find("extract_delegate_segments"); v && !v->is_null()) c.extract_delegate_segments = v->bool_value();
  // Internal (pteWithWeights keeps each delegate where its input had it):
  // per delegate in execution-plan order, whether it goes to a segment.
  if (const Json* v = j->find("extract_only"); v && v->is_array())
    for (const Json& b : v->items()) c.extract_only.push_back(b.bool_value());
  ETP_ASSIGN(auto seg, positive(j->find("segment_alignment"), "segmentAlignment"));
  if (seg) c.segment_alignment = *seg;
  ETP_ASSIGN(c.constant_tensor_alignment, positive(j->find("constant_tensor_alignment"), "constantTensorAlignment"));
  ETP_ASSIGN(c.delegate_alignment, positive(j->find("delegate_alignment"), "delegateAlignment"));
  return c;
}

FlatTensorConfig data_config_from_json(const Json* j) {
  FlatTensorConfig c;
  if (j != nullptr)
    if (const Json* v = j->find("segment_alignment"); v && v->as_uint64()) c.segment_alignment = *v->as_uint64();
  return c;
}

Result<TableValue> program_from_text(std::string_view text) {
  return table_from_json_text(text, *program_schema().root, [](const Json& reference) { return blob_from_json(reference); });
}

Result<TableValue> program_from_stream(std::string_view bytes) {
  return table_from_value_stream(bytes, *program_schema().root, [](const Json& reference) { return blob_from_json(reference); });
}

namespace {
bool is_stream(const Json& request) {
  const Json* form = request.find("program_form");
  return form != nullptr && form->is_string() && form->text() == "stream";
}
}  // namespace

Result<TableValue> program_from_request(std::string_view program, const Json& request) {
  return is_stream(request) ? program_from_stream(program) : program_from_text(program);
}

Result<TableValue> program_for_pte(std::string_view program, const Json& request, std::optional<StreamPrefix>& plans) {
  plans.reset();
  if (!is_stream(request)) return program_from_text(program);
  const Json* config = request.find("config");
  const Json* extract = config != nullptr ? config->find("extract_delegate_segments") : nullptr;
  const Json* constants = request.find("external_constant_map");
  return program_stream_for_pte(program, [](const Json& reference) { return blob_from_json(reference); },
                                extract != nullptr && !extract->is_null() && extract->bool_value(),
                                constants != nullptr && constants->is_object() && !constants->members().empty(), plans);
}

}  // namespace etpack::bindings
