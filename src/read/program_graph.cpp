#include "read/program_graph.h"
#include "read/program_graph_data.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/json.h"
#include "model/scalar_type.h"
#include "read/inspect_details.h"
#include "read/program_tensors.h"
#include "read/work_budget.h"

namespace etpack {
namespace {

Json u64(uint64_t v) { return Json::unsigned_integer(v); }
Json opt_u64(std::optional<uint64_t> v) { return v ? u64(*v) : Json::null(); }
Json opt_string(const Value& v) { return v.is_string() ? Json::string(v.str()) : Json::null(); }

// Work units one node or edge costs (a read element costs 1), as inspect
// charges its JSON objects.
constexpr uint64_t kObjectCost = 16;
constexpr uint32_t kNoNode = UINT32_MAX;

Error too_large() {
  return make_error(ErrorCode::kResourceLimit,
                    "the file shares vectors so often that its graph would be unreasonably large");
}

std::string type_text(const TensorView& t) {
  const char* name = scalar_type_name(t.scalar_type);
  return std::string(name ? name : "?") + (t.rank ? shape_text(t.sizes) : "");
}

// What the builder knows of one EValue.
struct ValueInfo {
  std::string type = "None";     // the KernelTypes member's name
  const TableValue* val = nullptr;  // the member's table
  std::optional<TensorView> tensor;
  const Value* items = nullptr;  // a TensorList's / OptionalTensorList's items
  uint32_t producer = kNoNode;
  uint64_t stamp = 0;            // 1 + the order of the last instruction that named it
  std::optional<uint64_t> first, last;
  std::string edge_json, edge_text;  // an edge's dtype and shape members, and its label's type part
};

class MethodGraph {
 public:
  MethodGraph(const FileSource& file, const PteFile& pte, const PtdKeyFiles& keys, size_t index, WorkBudget& budget,
              std::string& out)
      : json_(out), file_(file), pte_(pte), keys_(keys), index_(index),
        plan_(pte.program.get("execution_plan").items()[index].table()), budget_(budget) {}

  Result<GraphMethodRefs> run() {
    if (!read_values()) return too_large();
    // The texts grow to about this (a node ~170 bytes, an edge ~110 per
    // argument): reserved at once, their pages are touched once, not again
    // at each doubling (fresh pages dominate the cost of a large graph).
    const uint64_t reserve = std::min<uint64_t>(file_.size(), uint64_t{1} << 28);
    nodes_text_.reserve(static_cast<size_t>(reserve * 3));
    edges_text_.reserve(static_cast<size_t>(reserve * 10));
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
    const Value& name = plan_.get("name");
    refs.title = name.is_string() ? name.str() : "(unnamed method " + std::to_string(index_) + ")";
    std::string& out = json_;
    out.reserve(out.size() + nodes_text_.size() + edges_text_.size() + values_.size() * 160 + 256);
    out += "{\"name\": ";
    write_json(opt_string(name), out);
    out += ", \"index\": " + std::to_string(index_) + ", \"chains\": [";
    for (size_t c = 0; c < chain_sizes_.size(); ++c) out += (c ? ", " : "") + std::to_string(chain_sizes_[c]);
    out += "], \"instructionCount\": " + std::to_string(order_) + ", \"nodes\": [";
    out += nodes_text_;
    std::string().swap(nodes_text_);  // freed before the next copy
    out += "], \"edges\": [";
    out += edges_text_;
    std::string().swap(edges_text_);
    out += "], \"values\": [";
    values_json(out);
    out += "]}";
    refs.nodes = std::move(refs_);
    refs.edges = std::move(edges_);
    return refs;
  }

 private:
  std::string& json_;  // the program's JSON text, this method's appended by run()

  bool read_values() {
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

  ValueInfo* value(int64_t v) {
    return v >= 0 && static_cast<uint64_t>(v) < values_.size() ? &values_[static_cast<size_t>(v)] : nullptr;
  }

  // A new node: its JSON object stays open in nodes_text_ (members may
  // still be added with member()) until the next one starts. Written as
  // text, never as a Json tree: 20,000 nodes' trees would cost the wasm
  // heap tens of MiB.
  uint32_t add_node(std::string id, const char* kind, std::optional<std::pair<size_t, size_t>> at, std::string label) {
    flush();
    std::string& out = nodes_text_;
    if (!out.empty()) out += ", ";
    out += "{\"id\": ";
    write_json_string(id, out);
    out += ", \"kind\": \"";
    out += kind;
    if (at) {
      out += "\", \"instruction\": {\"chain\": " + std::to_string(at->first) + ", \"index\": " + std::to_string(at->second) +
             "}, \"order\": " + std::to_string(order_);
    } else {
      out += "\", \"instruction\": null, \"order\": null";
    }
    out += ", \"label\": ";
    write_json_string(label, out);
    open_ = true;
    refs_.push_back({std::move(id), kind, std::move(label)});
    return static_cast<uint32_t>(refs_.size() - 1);
  }

  // One more member of the open node.
  void member(const char* key, const Json& v) {
    nodes_text_ += ", \"";
    nodes_text_ += key;
    nodes_text_ += "\": ";
    write_json(v, nodes_text_);
  }

  void flush() {
    if (open_) nodes_text_ += "}";
    open_ = false;
  }

  uint32_t io_node(const char* kind, const char* prefix, size_t position, int64_t v) {
    ValueInfo* info = value(v);
    std::string label = std::string(kind) + " v" + std::to_string(v);
    if (info && info->tensor) label += ": " + type_text(*info->tensor);
    else if (info) label += ": " + info->type;
    uint32_t node = add_node(prefix + std::to_string(position), kind, std::nullopt, label);
    member("value", Json::integer(v));
    member("position", u64(position));
    if (info && info->producer == kNoNode && std::string(kind) == "input") info->producer = node;
    return node;
  }

  // Constants, mutable buffers with initial data and external tensors: the
  // value's own node is its producer.
  void data_nodes() {
    for (size_t v = 0; v < values_.size(); ++v) {
      ValueInfo& info = values_[v];
      if (!info.tensor || info.producer != kNoNode) continue;
      const TensorView& t = *info.tensor;
      const char* kind = t.data == TensorData::kConstant ? "constant"
                         : t.data == TensorData::kMutable ? "mutable"
                         : (t.data == TensorData::kExternalConstant || t.data == TensorData::kExternalMutable) ? "external"
                                                                                                            : nullptr;
      if (!kind) continue;
      std::string label = t.fqn ? *t.fqn : std::string(kind) + " v" + std::to_string(v);
      label += ": " + type_text(t);
      uint32_t node = add_node("v" + std::to_string(v), kind, std::nullopt, label);
      member("value", u64(v));
      if (std::string(kind) == "external") {
        member("key", t.fqn ? Json::string(*t.fqn) : Json::null());
        member("file", external_file(t));
      }
      info.producer = node;
    }
  }

  Json external_file(const TensorView& t) const {
    if (!t.fqn) return Json::null();
    auto found = keys_.find(*t.fqn);
    return found == keys_.end() ? Json::null() : Json::string(found->second);
  }

  void edge(uint32_t from, uint32_t to, std::optional<int64_t> v, bool control = false) {
    GraphEdgeRef ref{from, to, control, control ? "false" : "v" + std::to_string(v.value_or(0))};
    std::string& out = edges_text_;
    if (!out.empty()) out += ", ";
    out += "{\"from\": ";
    write_json_string(refs_[from].id, out);
    out += ", \"to\": ";
    write_json_string(refs_[to].id, out);
    out += ", \"value\": " + (v ? std::to_string(*v) : std::string("null"));
    ValueInfo* info = v ? value(*v) : nullptr;
    if (info && info->tensor) {
      // Written once per value, then reused by every edge carrying it.
      if (info->edge_json.empty()) {
        Json types = Json::object();
        set_dtype_shape(types, *info->tensor);
        for (const auto& [key, member] : types.members()) {
          info->edge_json += ", ";
          write_json_string(key, info->edge_json);
          info->edge_json += ": ";
          write_json(member, info->edge_json);
        }
        info->edge_text = " " + type_text(*info->tensor);
      }
      out += info->edge_json;
      ref.text += info->edge_text;
    } else {
      out += ", \"dtype\": null, \"shape\": null";
    }
    out += control ? ", \"kind\": \"control\"}" : ", \"kind\": \"data\"}";
    edges_.push_back(std::move(ref));
  }

  // Instruction `node` names value `v`: an edge from its producer (once
  // per instruction), or, for an unproduced tensor and `may_produce`, the
  // instruction becomes its producer.
  bool use(uint32_t node, int64_t v, bool may_produce) {
    ValueInfo* info = value(v);
    if (!info) return true;
    if (!info->first) info->first = order_;
    info->last = order_;
    if (info->stamp == order_ + 1) return true;
    info->stamp = order_ + 1;
    if (info->producer != kNoNode && info->producer != node) {
      if (!budget_.spend(kObjectCost)) return false;
      edge(info->producer, node, v);
    } else if (info->producer == kNoNode && may_produce && info->tensor) {
      info->producer = node;
    }
    return true;
  }

  // The args of a KernelCall or DelegateCall, tensor lists' items included.
  bool use_args(uint32_t node, const Value& args) {
    const size_t n = scalar_vector_length(args, BaseType::kInt);
    if (!budget_.spend(n)) return false;
    std::string list = "[";
    for (size_t i = 0; i < n; ++i) {
      const int64_t v = scalar_vector_int(args, BaseType::kInt, i);
      list += (i ? ", " : "") + std::to_string(v);
      if (!use(node, v, true)) return false;
      const ValueInfo* info = value(v);
      if (!info || !info->items) continue;
      const size_t m = scalar_vector_length(*info->items, BaseType::kInt);
      if (!budget_.spend(m)) return false;
      for (size_t k = 0; k < m; ++k)
        if (!use(node, scalar_vector_int(*info->items, BaseType::kInt, k), true)) return false;
    }
    nodes_text_ += ", \"args\": " + list + "]";
    return true;
  }

  bool instructions() {
    const Value& chains = plan_.get("chains");
    std::vector<std::pair<uint32_t, std::pair<size_t, int64_t>>> jumps;  // node, (chain, target)
    std::vector<size_t> chain_first;  // node index of each chain's first instruction
    for (size_t c = 0; chains.is_items() && c < chains.items().size(); ++c) {
      const Value& list = chains.items()[c].table().get("instructions");
      const size_t count = list.is_items() ? list.items().size() : 0;
      chain_sizes_.push_back(count);
      chain_first.push_back(refs_.size());
      if (!budget_.spend(count * kObjectCost)) return false;
      for (size_t i = 0; i < count; ++i, ++order_) {
        const std::pair<size_t, size_t> at{c, i};
        const std::string id = "c" + std::to_string(c) + ".i" + std::to_string(i);
        const Value& args = list.items()[i].table().get("instr_args");
        const TableValue* call = args.is_table() ? &args.table() : nullptr;
        const std::string type = call ? call->def->name : "";
        if (type == "KernelCall") {
          const int64_t op = call->get_int("op_index");
          const Value& ops = plan_.get("operators");
          const TableValue* op_table = op >= 0 && ops.is_items() && static_cast<uint64_t>(op) < ops.items().size()
                                           ? &ops.items()[static_cast<size_t>(op)].table() : nullptr;
          std::string label = "operator #" + std::to_string(op);
          Json name = Json::null(), overload = Json::null();
          if (op_table) {
            const Value& n = op_table->get("name");
            const Value& o = op_table->get("overload");
            name = opt_string(n);
            if (o.is_string() && !o.str().empty()) overload = Json::string(o.str());
            label = (n.is_string() ? n.str() : label) + (overload.is_string() ? "." + overload.text() : "");
          }
          uint32_t node = add_node(id, "kernel", at, label);
          member("operator", std::move(name));
          member("overload", std::move(overload));
          member("opIndex", Json::integer(op));
          if (!use_args(node, call->get("args"))) return false;
        } else if (type == "DelegateCall") {
          const int64_t d = call->get_int("delegate_index");
          const TableValue* delegate = delegate_at(d);
          const std::optional<uint64_t> size = delegate ? blob_size(*delegate) : std::nullopt;
          std::string label = delegate && delegate->get("id").is_string() ? delegate->get("id").str() : "delegate #" + std::to_string(d);
          if (size) label += " (" + std::to_string(*size) + " bytes)";
          uint32_t node = add_node(id, "delegate", at, label);
          if (!delegate_members(delegate, d, size) || !use_args(node, call->get("args"))) return false;
        } else if (type == "JumpFalseCall") {
          const int64_t cond = call->get_int("cond_value_index");
          const int64_t target = call->get_int("destination_instruction");
          uint32_t node = add_node(id, "jumpFalse", at,
                                   "jump to " + std::to_string(target) + " unless v" + std::to_string(cond));
          member("cond", Json::integer(cond));
          member("target", Json::integer(target));
          if (!use(node, cond, false)) return false;
          jumps.push_back({node, {c, target}});
        } else if (type == "MoveCall") {
          const int64_t from = call->get_int("move_from"), to = call->get_int("move_to");
          uint32_t node = add_node(id, "move", at,
                                   "move v" + std::to_string(from) + " to v" + std::to_string(to));
          member("from", Json::integer(from));
          member("to", Json::integer(to));
          if (!use(node, from, false)) return false;
          if (ValueInfo* info = value(to)) {
            if (!use(node, to, false)) return false;
            info->producer = node;
          }
        } else if (type == "FreeCall") {
          const int64_t v = call->get_int("value_index");
          uint32_t node = add_node(id, "free", at, "free v" + std::to_string(v));
          member("value", Json::integer(v));
          if (!use(node, v, false)) return false;
        } else {
          add_node(id, "unknown", at, "instruction without arguments");
        }
      }
    }
    for (const auto& [node, where] : jumps) {
      const auto [c, target] = where;
      if (target < 0 || static_cast<uint64_t>(target) >= chain_sizes_[c]) continue;
      if (!budget_.spend(kObjectCost)) return false;
      edge(node, static_cast<uint32_t>(chain_first[c] + static_cast<size_t>(target)), std::nullopt, true);
    }
    return true;
  }

  const TableValue* delegate_at(int64_t d) const {
    const Value& delegates = plan_.get("delegates");
    return d >= 0 && delegates.is_items() && static_cast<uint64_t>(d) < delegates.items().size()
               ? &delegates.items()[static_cast<size_t>(d)].table() : nullptr;
  }

  bool delegate_members(const TableValue* delegate, int64_t d, std::optional<uint64_t> size) {
    member("backend", delegate ? opt_string(delegate->get("id")) : Json::null());
    member("delegateIndex", Json::integer(d));
    member("blobSize", opt_u64(size));
    Json specs = Json::array();
    static const Value kAbsent;
    const Value& list = delegate ? delegate->get("compile_specs") : kAbsent;
    const size_t count = list.is_items() ? list.items().size() : 0;
    if (!budget_.spend(count * kObjectCost)) return false;
    for (size_t i = 0; i < count; ++i) specs.push(compile_spec_json(list.items()[i].table()));
    member("compileSpecs", specs);
    return true;
  }

  // The processed blob's size, inline or in a segment (as inspect reports it).
  std::optional<uint64_t> blob_size(const TableValue& delegate) const {
    const Value& ref = delegate.get("processed");
    if (!ref.is_table()) return std::nullopt;
    const uint64_t index = ref.table().get_uint("index");
    const uint64_t location = ref.table().get_uint("location");
    const Value& list = pte_.program.get(location == 0 ? "backend_delegate_data" : "segments");
    if (location > 1 || !list.is_items() || index >= list.items().size()) return std::nullopt;
    const TableValue& entry = list.items()[static_cast<size_t>(index)].table();
    if (location == 1) return entry.get_uint("size");
    const Value& data = entry.get("data");
    return data.is_scalars() ? data.scalars().size() : 0;
  }

  void values_json(std::string& text) {
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

  const FileSource& file_;
  const PteFile& pte_;
  const PtdKeyFiles& keys_;
  size_t index_;
  const TableValue& plan_;
  WorkBudget& budget_;
  std::vector<ValueInfo> values_;
  bool open_ = false;               // the last node's JSON object is still open
  std::vector<GraphNodeRef> refs_;  // every node so far
  std::string nodes_text_;          // JSON of the finished nodes
  std::vector<GraphEdgeRef> edges_;
  std::string edges_text_;          // JSON of the edges
  std::vector<uint64_t> chain_sizes_;
  uint64_t order_ = 0;
};

}  // namespace

Result<ProgramGraph> program_graph(const FileSource& file, const PteFile& pte, const PtdKeyFiles& keys,
                                   const std::optional<std::string>& method) {
  WorkBudget budget(WorkBudget::for_file_size(file.size()));
  const Value& plans = pte.program.get("execution_plan");
  const size_t count = plans.is_items() ? plans.items().size() : 0;
  ProgramGraph graph;
  graph.json = "{\"schema\": 1, \"methods\": [";
  std::string names;
  for (size_t p = 0; p < count; ++p) {
    const Value& name = plans.items()[p].table().get("name");
    if (method && !(name.is_string() && name.str() == *method)) {
      if (names.size() < 200) names += (names.empty() ? "" : ", ") + (name.is_string() ? name.str() : "(unnamed)");
      continue;
    }
    if (!graph.methods.empty()) graph.json += ", ";
    ETP_ASSIGN(GraphMethodRefs refs, MethodGraph(file, pte, keys, p, budget, graph.json).run());
    graph.methods.push_back(std::move(refs));
  }
  if (method && graph.methods.empty())
    return make_error(ErrorCode::kInvalidArgument, "the program has no method named '" + *method + "' (it has: " +
                                                       (names.empty() ? "none" : names) + ")");
  graph.json += "]}";
  return graph;
}

}  // namespace etpack
