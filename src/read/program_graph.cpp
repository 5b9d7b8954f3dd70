#include "read/program_graph.h"

#include <cstdint>
#include <vector>

#include "core/checked_math.h"
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
};

// File offsets of in-file tensor data (constants and mutable buffers' initial data).
class DataLocator {
 public:
  DataLocator(const FileSource& file, const PteFile& pte) : file_(file), pte_(pte) {}

  Json constant(const TensorView& t) {
    const TableValue& program = pte_.program;
    const Value& cs = program.get("constant_segment");
    if (cs.is_table() && scalar_vector_length(cs.table().get("offsets"), BaseType::kULong) > 1)
      return in_segment("constant", "constant_segment", cs.table(), t);
    const Value& cb = program.get("constant_buffer");
    Json j = base("constant", "constant_buffer[" + std::to_string(t.data_buffer_idx) + "]", t);
    if (cb.is_items() && t.data_buffer_idx < cb.items().size()) {
      const Value& storage = cb.items()[static_cast<size_t>(t.data_buffer_idx)].table().get("storage");
      if (storage.is_scalars()) j.members()[2].second = opt_u64(offset_in_file(storage.scalars(), file_.head));
    }
    return j;
  }

  Json mutable_data(const TensorView& t) {
    const Value& mds = pte_.program.get("mutable_data_segments");
    if (!mds.is_items() || mds.items().empty()) return base("mutable", std::nullopt, t);
    return in_segment("mutable", "mutable_data_segments[0]", mds.items()[0].table(), t);
  }

  static Json base(const char* kind, std::optional<std::string> where, const TensorView& t) {
    Json j = Json::object();
    j.set("kind", Json::string(kind));
    j.set("where", where ? Json::string(*where) : Json::null());
    j.set("offset", Json::null());
    j.set("size", opt_u64(view_nbytes(t)));
    j.set("key", Json::null());
    j.set("file", Json::null());
    return j;
  }

 private:
  // segment base + segments[segment_index].offset + offsets[data_buffer_idx]
  Json in_segment(const char* kind, const std::string& name, const TableValue& sub, const TensorView& t) {
    Json j = base(kind, name + ".offsets[" + std::to_string(t.data_buffer_idx) + "]", t);
    const Value& offsets = sub.get("offsets");
    const Value& segments = pte_.program.get("segments");
    const uint64_t index = sub.get_uint("segment_index");
    if (!pte_.header || t.data_buffer_idx >= scalar_vector_length(offsets, BaseType::kULong) || !segments.is_items() ||
        index >= segments.items().size())
      return j;
    std::optional<uint64_t> at = checked_add(pte_.header->segment_base_offset,
                                             segments.items()[static_cast<size_t>(index)].table().get_uint("offset"));
    if (at) at = checked_add(*at, scalar_vector_uint(offsets, BaseType::kULong, static_cast<size_t>(t.data_buffer_idx)));
    j.members()[2].second = opt_u64(at);
    return j;
  }

  const FileSource& file_;
  const PteFile& pte_;
};

class MethodGraph {
 public:
  MethodGraph(const FileSource& file, const PteFile& pte, const PtdKeyFiles& keys, size_t index, WorkBudget& budget)
      : file_(file), pte_(pte), keys_(keys), index_(index),
        plan_(pte.program.get("execution_plan").items()[index].table()), budget_(budget) {}

  Result<Json> run() {
    if (!read_values()) return too_large();
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
    Json m = Json::object();
    m.set("name", opt_string(plan_.get("name")));
    m.set("index", u64(index_));
    Json chains = Json::array();
    for (uint64_t n : chain_sizes_) chains.push(u64(n));
    m.set("chains", std::move(chains));
    m.set("instructionCount", u64(order_));
    Json nodes = Json::array();
    for (Json& n : nodes_) nodes.push(std::move(n));
    m.set("nodes", std::move(nodes));
    Json edges = Json::array();
    for (Json& e : edges_) edges.push(std::move(e));
    m.set("edges", std::move(edges));
    m.set("values", values_json());
    return m;
  }

 private:
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

  uint32_t add_node(std::string id, const char* kind, Json instruction, std::optional<uint64_t> order, std::string label) {
    Json n = Json::object();
    n.set("id", Json::string(id));
    n.set("kind", Json::string(kind));
    n.set("instruction", std::move(instruction));
    n.set("order", opt_u64(order));
    n.set("label", Json::string(std::move(label)));
    nodes_.push_back(std::move(n));
    ids_.push_back(std::move(id));
    return static_cast<uint32_t>(nodes_.size() - 1);
  }

  uint32_t io_node(const char* kind, const char* prefix, size_t position, int64_t v) {
    ValueInfo* info = value(v);
    std::string label = std::string(kind) + " v" + std::to_string(v);
    if (info && info->tensor) label += ": " + type_text(*info->tensor);
    else if (info) label += ": " + info->type;
    uint32_t node = add_node(prefix + std::to_string(position), kind, Json::null(), std::nullopt, label);
    nodes_[node].set("value", Json::integer(v));
    nodes_[node].set("position", u64(position));
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
      uint32_t node = add_node("v" + std::to_string(v), kind, Json::null(), std::nullopt, label);
      nodes_[node].set("value", u64(v));
      if (std::string(kind) == "external") {
        nodes_[node].set("key", t.fqn ? Json::string(*t.fqn) : Json::null());
        nodes_[node].set("file", external_file(t));
      }
      info.producer = node;
    }
  }

  Json external_file(const TensorView& t) const {
    if (!t.fqn) return Json::null();
    auto found = keys_.find(*t.fqn);
    return found == keys_.end() ? Json::null() : Json::string(found->second);
  }

  void edge(uint32_t from, uint32_t to, std::optional<int64_t> v, const char* kind = "data") {
    Json e = Json::object();
    e.set("from", Json::string(ids_[from]));
    e.set("to", Json::string(ids_[to]));
    e.set("value", v ? Json::integer(*v) : Json::null());
    const ValueInfo* info = v ? value(*v) : nullptr;
    if (info && info->tensor) {
      set_dtype_shape(e, *info->tensor);
    } else {
      e.set("dtype", Json::null());
      e.set("shape", Json::null());
    }
    e.set("kind", Json::string(kind));
    edges_.push_back(std::move(e));
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
    Json list = Json::array();
    for (size_t i = 0; i < n; ++i) {
      const int64_t v = scalar_vector_int(args, BaseType::kInt, i);
      list.push(Json::integer(v));
      if (!use(node, v, true)) return false;
      const ValueInfo* info = value(v);
      if (!info || !info->items) continue;
      const size_t m = scalar_vector_length(*info->items, BaseType::kInt);
      if (!budget_.spend(m)) return false;
      for (size_t k = 0; k < m; ++k)
        if (!use(node, scalar_vector_int(*info->items, BaseType::kInt, k), true)) return false;
    }
    nodes_[node].set("args", std::move(list));
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
      chain_first.push_back(nodes_.size());
      if (!budget_.spend(count * kObjectCost)) return false;
      for (size_t i = 0; i < count; ++i, ++order_) {
        Json at = Json::object();
        at.set("chain", u64(c));
        at.set("index", u64(i));
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
          uint32_t node = add_node(id, "kernel", std::move(at), order_, label);
          nodes_[node].set("operator", std::move(name));
          nodes_[node].set("overload", std::move(overload));
          nodes_[node].set("opIndex", Json::integer(op));
          if (!use_args(node, call->get("args"))) return false;
        } else if (type == "DelegateCall") {
          const int64_t d = call->get_int("delegate_index");
          uint32_t node = add_node(id, "delegate", std::move(at), order_, "");
          if (!delegate_members(node, d) || !use_args(node, call->get("args"))) return false;
        } else if (type == "JumpFalseCall") {
          const int64_t cond = call->get_int("cond_value_index");
          const int64_t target = call->get_int("destination_instruction");
          uint32_t node = add_node(id, "jumpFalse", std::move(at), order_,
                                   "jump to " + std::to_string(target) + " unless v" + std::to_string(cond));
          nodes_[node].set("cond", Json::integer(cond));
          nodes_[node].set("target", Json::integer(target));
          if (!use(node, cond, false)) return false;
          jumps.push_back({node, {c, target}});
        } else if (type == "MoveCall") {
          const int64_t from = call->get_int("move_from"), to = call->get_int("move_to");
          uint32_t node = add_node(id, "move", std::move(at), order_,
                                   "move v" + std::to_string(from) + " to v" + std::to_string(to));
          nodes_[node].set("from", Json::integer(from));
          nodes_[node].set("to", Json::integer(to));
          if (!use(node, from, false)) return false;
          if (ValueInfo* info = value(to)) {
            if (!use(node, to, false)) return false;
            info->producer = node;
          }
        } else if (type == "FreeCall") {
          const int64_t v = call->get_int("value_index");
          uint32_t node = add_node(id, "free", std::move(at), order_, "free v" + std::to_string(v));
          nodes_[node].set("value", Json::integer(v));
          if (!use(node, v, false)) return false;
        } else {
          add_node(id, "unknown", std::move(at), order_, "instruction without arguments");
        }
      }
    }
    for (const auto& [node, where] : jumps) {
      const auto [c, target] = where;
      if (target < 0 || static_cast<uint64_t>(target) >= chain_sizes_[c]) continue;
      if (!budget_.spend(kObjectCost)) return false;
      edge(node, static_cast<uint32_t>(chain_first[c] + static_cast<size_t>(target)), std::nullopt, "control");
    }
    return true;
  }

  bool delegate_members(uint32_t node, int64_t d) {
    const Value& delegates = plan_.get("delegates");
    const TableValue* delegate = d >= 0 && delegates.is_items() && static_cast<uint64_t>(d) < delegates.items().size()
                                     ? &delegates.items()[static_cast<size_t>(d)].table() : nullptr;
    Json& n = nodes_[node];
    n.set("backend", delegate ? opt_string(delegate->get("id")) : Json::null());
    n.set("delegateIndex", Json::integer(d));
    const std::optional<uint64_t> size = delegate ? blob_size(*delegate) : std::nullopt;
    n.set("blobSize", opt_u64(size));
    Json specs = Json::array();
    static const Value kAbsent;
    const Value& list = delegate ? delegate->get("compile_specs") : kAbsent;
    const size_t count = list.is_items() ? list.items().size() : 0;
    if (!budget_.spend(count * kObjectCost)) return false;
    for (size_t i = 0; i < count; ++i) specs.push(compile_spec_json(list.items()[i].table()));
    n.set("compileSpecs", std::move(specs));
    std::string label = delegate && delegate->get("id").is_string() ? delegate->get("id").str() : "delegate #" + std::to_string(d);
    if (size) label += " (" + std::to_string(*size) + " bytes)";
    n.members()[4].second = Json::string(label);
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

  Json values_json() {
    Json out = Json::array();
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
          data.members()[4].second = t.fqn ? Json::string(*t.fqn) : Json::null();
          data.members()[5].second = external_file(t);
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
      out.push(std::move(j));
    }
    return out;
  }

  const FileSource& file_;
  const PteFile& pte_;
  const PtdKeyFiles& keys_;
  size_t index_;
  const TableValue& plan_;
  WorkBudget& budget_;
  std::vector<ValueInfo> values_;
  std::vector<Json> nodes_;
  std::vector<std::string> ids_;
  std::vector<Json> edges_;
  std::vector<uint64_t> chain_sizes_;
  uint64_t order_ = 0;
};

}  // namespace

Result<Json> program_graph(const FileSource& file, const PteFile& pte, const PtdKeyFiles& keys,
                           const std::optional<std::string>& method) {
  WorkBudget budget(WorkBudget::for_file_size(file.size()));
  const Value& plans = pte.program.get("execution_plan");
  const size_t count = plans.is_items() ? plans.items().size() : 0;
  Json methods = Json::array();
  std::string names;
  for (size_t p = 0; p < count; ++p) {
    const Value& name = plans.items()[p].table().get("name");
    if (method && !(name.is_string() && name.str() == *method)) {
      if (names.size() < 200) names += (names.empty() ? "" : ", ") + (name.is_string() ? name.str() : "(unnamed)");
      continue;
    }
    ETP_ASSIGN(Json m, MethodGraph(file, pte, keys, p, budget).run());
    methods.push(std::move(m));
  }
  if (method && methods.items().empty())
    return make_error(ErrorCode::kInvalidArgument, "the program has no method named '" + *method + "' (it has: " +
                                                       (names.empty() ? "none" : names) + ")");
  Json out = Json::object();
  out.set("schema", Json::integer(1));
  out.set("methods", std::move(methods));
  return out;
}

}  // namespace etpack
