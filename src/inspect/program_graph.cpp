#include "inspect/program_graph_builder.h"

#include <algorithm>
#include <cstdint>
#include <optional>
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
    json_.lit("{\"name\": ");
    json_.json(opt_string(name));
    json_.lit(", \"index\": ");
    json_.unsigned_number(index_);
    json_.lit(", \"chains\": [");
    for (size_t c = 0; c < chain_sizes_.size(); ++c) {
      if (c) json_.lit(", ");
      json_.unsigned_number(chain_sizes_[c]);
    }
    json_.lit("], \"instructionCount\": ");
    json_.unsigned_number(instructions_total);
    json_.lit(", \"nodes\": [");
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
    json_.lit("], \"edges\": [");
    edges_json();
    json_.lit("], \"values\": [");
    values_json();
    json_.lit("]}");
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

void MethodGraph::values_json() {
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
    if (v) json_.lit(", ");
    json_.json(j);
  }
}

uint64_t work_bound(const TableValue& plan, uint64_t limit) {
  uint64_t total = 0;
  const auto add = [&](uint64_t units) {
    total = units > UINT64_MAX - total ? UINT64_MAX : total + units;
    return total <= limit;
  };
  const Value& values = plan.get("values");
  const size_t n_values = values.is_items() ? values.items().size() : 0;
  // A value's list items (TensorList, OptionalTensorList): each named too.
  const auto items = [&](int64_t v) -> uint64_t {
    if (v < 0 || static_cast<uint64_t>(v) >= n_values) return 0;
    const Value& val = values.items()[static_cast<size_t>(v)].table().get("val");
    if (!val.is_table() || (val.table().def->name != "TensorList" && val.table().def->name != "OptionalTensorList")) return 0;
    return scalar_vector_length(val.table().get("items"), BaseType::kInt);
  };
  const Value& delegates = plan.get("delegates");
  const Value& chains = plan.get("chains");
  const size_t n_chains = chains.is_items() ? chains.items().size() : 0;
  if (!add(n_values * kObjectCost) || !add(scalar_vector_length(plan.get("inputs"), BaseType::kInt) * kObjectCost) ||
      !add(scalar_vector_length(plan.get("outputs"), BaseType::kInt) * kObjectCost * 2) || !add(n_chains))
    return total;
  for (size_t c = 0; c < n_chains; ++c) {
    const Value& list = chains.items()[c].table().get("instructions");
    const size_t count = list.is_items() ? list.items().size() : 0;
    if (!add(count * kObjectCost)) return total;
    for (size_t i = 0; i < count; ++i) {
      const Value& args = list.items()[i].table().get("instr_args");
      if (!args.is_table()) continue;
      const TableValue& call = args.table();
      const std::string& type = call.def->name;
      uint64_t units = 0;  // the args (use_args: 1 each), and an edge for each value named (kObjectCost)
      if (type == "KernelCall" || type == "DelegateCall") {
        const Value& list_args = call.get("args");
        const size_t n = scalar_vector_length(list_args, BaseType::kInt);
        if (!add(n * (kObjectCost + 1))) return total;
        for (size_t k = 0; k < n; ++k)
          if (!add(items(scalar_vector_int(list_args, BaseType::kInt, k)) * (kObjectCost + 1))) return total;
        const int64_t d = type == "DelegateCall" ? call.get_int("delegate_index") : -1;
        if (d >= 0 && delegates.is_items() && static_cast<uint64_t>(d) < delegates.items().size()) {
          const Value& specs = delegates.items()[static_cast<size_t>(d)].table().get("compile_specs");
          units = (specs.is_items() ? specs.items().size() : 0) * kObjectCost;
        }
      } else if (type == "JumpFalseCall" || type == "MoveCall") {
        units = 2 * kObjectCost;  // the condition and the control edge; from and to
      } else if (type == "FreeCall") {
        units = kObjectCost;
      }
      if (!add(units)) return total;
    }
  }
  return total;
}

}  // namespace graph_build

Result<ProgramGraph> program_graph(const FileSource& file, const PteFile& pte, const PtdKeyFiles& keys,
                                   const std::optional<std::string>& method, const GraphOptions& options) {
  WorkBudget budget(WorkBudget::for_file_size(file.size()));
  const Value& plans = pte.program.get("execution_plan");
  const size_t count = plans.is_items() ? plans.items().size() : 0;
  ProgramGraph graph;
  // Streamed when nothing can fail any more: a method of that name, and
  // the work of every method chosen within the budget.
  bool stream = options.json && options.json_sink && !options.expand_delegates;
  uint64_t work = 0;
  bool chosen = false;
  for (size_t p = 0; stream && p < count; ++p) {
    const Value& name = plans.items()[p].table().get("name");
    if (method && !(name.is_string() && name.str() == *method)) continue;
    chosen = true;
    const uint64_t left = budget.units() - std::min(work, budget.units());
    work += std::min(graph_build::work_bound(plans.items()[p].table(), left), left + 1);
    stream = work <= budget.units();
  }
  stream = stream && chosen;
  // Otherwise the text grows to about this (a node ~170 bytes, an edge ~110
  // per argument, ~12 times the file): reserved once for all methods, so it
  // is not copied at each doubling (pages reserved but never written cost no
  // memory); past the cap it grows by doubling.
  if (options.json && !stream) graph.json.reserve(static_cast<size_t>(std::min<uint64_t>(file.size(), uint64_t{16} << 20) * 14));
  std::optional<TextOut> text;
  if (stream) text.emplace(options.json_sink);
  else text.emplace(graph.json);
  graph.streamed = stream;
  text->lit("{\"schema\": 1, \"methods\": [");
  std::string names;
  for (size_t p = 0; p < count; ++p) {
    const Value& name = plans.items()[p].table().get("name");
    if (method && !(name.is_string() && name.str() == *method)) {
      if (names.size() < 200) names += (names.empty() ? "" : ", ") + (name.is_string() ? name.str() : "(unnamed)");
      continue;
    }
    if (!graph.methods.empty()) text->lit(", ");
    ETP_ASSIGN(GraphMethodRefs refs, graph_build::MethodGraph(file, pte, keys, p, budget, options, *text).run());
    graph.methods.push_back(std::move(refs));
  }
  if (method && graph.methods.empty())
    return make_error(ErrorCode::kInvalidArgument, "the program has no method named '" + *method + "' (it has: " +
                                                       (names.empty() ? "none" : names) + ")");
  text->lit("]}");
  text.reset();  // the last bytes flushed
  if (!options.json) std::string().swap(graph.json);
  return graph;
}

}  // namespace etpack
