#include "inspect/program_graph_builder.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "inspect/inspect_details.h"
#include "inspect/program_graph_data.h"

namespace etpack {
namespace graph_build {

namespace {

Error too_large() {
  return make_error(ErrorCode::kResourceLimit,
                    "the file shares vectors so often that its graph would be unreasonably large");
}

}  // namespace

Result<GraphMethodRefs> MethodGraph::run() {
  if (!read_values()) return too_large();
  const Value& chains = plan_.get("chains");
  uint64_t instructions_total = 0;
  for (size_t c = 0; chains.is_items() && c < chains.items().size(); ++c) {
    const Value& list = chains.items()[c].table().get("instructions");
    chain_sizes_.push_back(list.is_items() ? list.items().size() : 0);
    instructions_total += chain_sizes_.back();
  }
  const Value& name = plan_.get("name");
  if (options_.json) {
    json_ += "{\"name\": ";
    write_json(opt_string(name), json_);
    json_ += ", \"index\": " + std::to_string(index_) + ", \"chains\": [";
    for (size_t c = 0; c < chain_sizes_.size(); ++c) json_ += (c ? ", " : "") + std::to_string(chain_sizes_[c]);
    json_ += "], \"instructionCount\": " + std::to_string(instructions_total) + ", \"nodes\": [";
  }
  const Value& inputs = plan_.get("inputs");
  const size_t n_in = scalar_vector_length(inputs, BaseType::kInt);
  if (!budget_.spend(n_in * kObjectCost)) return too_large();
  for (size_t k = 0; k < n_in; ++k) io_node("input", "in", k, scalar_vector_int(inputs, BaseType::kInt, k));
  data_nodes();
  if (!instructions()) return too_large();
  const Value& outputs = plan_.get("outputs");
  const size_t n_out = scalar_vector_length(outputs, BaseType::kInt);
  if (!budget_.spend(n_out * kObjectCost * 2)) return too_large();
  for (size_t k = 0; k < n_out; ++k) {
    const int64_t v = scalar_vector_int(outputs, BaseType::kInt, k);
    uint32_t node = io_node("output", "out", k, v);
    if (ValueInfo* info = value(v); info && info->producer != kNoNode) edge(info->producer, node, v);
  }
  flush();
  GraphMethodRefs refs;
  refs.title = name.is_string() ? name.str() : "(unnamed method " + std::to_string(index_) + ")";
  if (options_.json) {
    json_ += "], \"edges\": [";
    edges_json(json_);
    json_ += "], \"values\": [";
    values_json(json_);
    json_ += "]}";
  }
  refs.value_types.reserve(values_.size());
  for (const ValueInfo& info : values_) refs.value_types.push_back(info.tensor ? " " + type_text(*info.tensor) : "");
  refs.nodes = std::move(refs_);
  refs.edges = std::move(edges_);
  refs.payload_keys = std::move(payload_keys_);
  return refs;
}

bool MethodGraph::read_values() {
  const Value& values = plan_.get("values");
  const size_t n = values.is_items() ? values.items().size() : 0;
  if (!budget_.spend(n * kObjectCost)) return false;
  values_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const Value& val = values.items()[i].table().get("val");
    if (!val.is_table()) continue;
    ValueInfo& info = values_[i];
    info.val = &val.table();
    info.type = val.table().def->name;
    if (info.type == "Tensor") info.tensor = view_tensor(val.table(), file_.head);
    if (info.type == "TensorList" || info.type == "OptionalTensorList") info.items = &val.table().get("items");
  }
  return true;
}

void MethodGraph::values_json(std::string& text) {
  DataLocator locate(file_, pte_);
  for (size_t v = 0; v < values_.size(); ++v) {
    const ValueInfo& info = values_[v];
    Json j = Json::object();
    j.set("index", u64(v));
    j.set("type", Json::string(info.type));
    Json memory = Json::null(), data = Json::null();
    if (info.tensor) {
      const TensorView& t = *info.tensor;
      set_dtype_shape(j, t);
      j.set("name", t.fqn ? Json::string(*t.fqn) : Json::null());
      const Value& alloc = info.val->get("allocation_info");
      if (alloc.is_table()) {
        memory = Json::object();
        memory.set("id", u64(alloc.table().get_uint("memory_id")));
        memory.set("offset", u64((alloc.table().get_uint("memory_offset_high") << 32) |
                                 alloc.table().get_uint("memory_offset_low")));
        memory.set("size", opt_u64(view_nbytes(t)));
      }
      if (t.data == TensorData::kConstant) data = locate.constant(t);
      if (t.data == TensorData::kMutable) data = locate.mutable_data(t);
      if (t.data == TensorData::kExternalConstant || t.data == TensorData::kExternalMutable) {
        data = DataLocator::base("external", std::nullopt, t);
        data.members()[kDataKey].second = t.fqn ? Json::string(*t.fqn) : Json::null();
        data.members()[kDataFile].second = external_file(t);
      }
    } else {
      j.set("dtype", Json::null());
      j.set("shape", Json::null());
      j.set("name", Json::null());
    }
    j.set("memory", std::move(memory));
    j.set("data", std::move(data));
    Json live = Json::null();
    if (info.first) {
      live = Json::object();
      live.set("first", u64(*info.first));
      live.set("last", u64(*info.last));
    }
    j.set("live", std::move(live));
    if (v) text += ", ";
    write_json(j, text);
  }
}

}  // namespace graph_build

Result<ProgramGraph> program_graph(const FileSource& file, const PteFile& pte, const PtdKeyFiles& keys,
                                   const std::optional<std::string>& method, const GraphOptions& options) {
  WorkBudget budget(WorkBudget::for_file_size(file.size()));
  const Value& plans = pte.program.get("execution_plan");
  const size_t count = plans.is_items() ? plans.items().size() : 0;
  ProgramGraph graph;
  // The text grows to about this (a node ~170 bytes, an edge ~110 per
  // argument, ~12 times the file): reserved once for all methods, so it is
  // not copied at each doubling (pages reserved but never written cost no
  // memory); past the cap it grows by doubling.
  if (options.json) graph.json.reserve(static_cast<size_t>(std::min<uint64_t>(file.size(), uint64_t{16} << 20) * 14));
  graph.json += "{\"schema\": 1, \"methods\": [";
  std::string names;
  for (size_t p = 0; p < count; ++p) {
    const Value& name = plans.items()[p].table().get("name");
    if (method && !(name.is_string() && name.str() == *method)) {
      if (names.size() < 200) names += (names.empty() ? "" : ", ") + (name.is_string() ? name.str() : "(unnamed)");
      continue;
    }
    if (!graph.methods.empty()) graph.json += ", ";
    ETP_ASSIGN(GraphMethodRefs refs, graph_build::MethodGraph(file, pte, keys, p, budget, options, graph.json).run());
    graph.methods.push_back(std::move(refs));
  }
  if (method && graph.methods.empty())
    return make_error(ErrorCode::kInvalidArgument, "the program has no method named '" + *method + "' (it has: " +
                                                       (names.empty() ? "none" : names) + ")");
  graph.json += "]}";
  if (!options.json) std::string().swap(graph.json);
  return graph;
}

}  // namespace etpack
