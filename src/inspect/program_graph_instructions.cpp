// The walk over a method's chains for its plan graph (program_graph_builder.h):
// a node per instruction, and the edges of the values it names.
#include "inspect/program_graph_builder.h"

#include <algorithm>
#include <vector>

#include "inspect/inspect_details.h"
#include "schema/enums.h"

namespace etpack {
namespace graph_build {

bool MethodGraph::use(uint32_t node, int64_t v, bool may_produce) {
  ValueInfo* info = value(v);
  if (!info) return true;
  if (!info->first) info->first = order_;
  info->last = order_;
  if (info->stamp == uint64_t{node} + 1) return true;
  info->stamp = uint64_t{node} + 1;
  if (info->producer != kNoNode && info->producer != node) {
    if (!budget_.spend(kObjectCost)) return false;
    edge(info->producer, node, v);
  } else if (info->producer == kNoNode && may_produce && info->tensor) {
    info->producer = node;
  }
  return true;
}

bool MethodGraph::use_args(uint32_t node, const Value& args) {
  const size_t n = scalar_vector_length(args, BaseType::kInt);
  if (!budget_.spend(n)) return false;
  if (open_) json_.lit(", \"args\": [");
  for (size_t i = 0; i < n; ++i) {
    const int64_t v = scalar_vector_int(args, BaseType::kInt, i);
    if (open_) {
      if (i) json_.lit(", ");
      json_.number(v);
    }
    if (!use(node, v, true)) return false;
    const ValueInfo* info = value(v);
    if (!info || !info->items) continue;
    const size_t m = scalar_vector_length(*info->items, BaseType::kInt);
    if (!budget_.spend(m)) return false;
    for (size_t k = 0; k < m; ++k)
      if (!use(node, scalar_vector_int(*info->items, BaseType::kInt, k), true)) return false;
  }
  if (open_) json_.put(']');
  return true;
}

bool MethodGraph::instructions() {
  const Value& chains = plan_.get("chains");
  Jumps jumps;
  std::vector<size_t> chain_first;  // order of each chain's first instruction
  if (!budget_.spend(chain_sizes_.size())) return false;
  for (size_t c = 0; c < chain_sizes_.size(); ++c) {
    const Value& list = chains.items()[c].table().get("instructions");
    const size_t count = static_cast<size_t>(chain_sizes_[c]);
    chain_first.push_back(static_cast<size_t>(order_));
    if (!budget_.spend(count * kObjectCost)) return false;
    // Room for the chain's nodes at once (paid for above), growing as
    // push_back would: a large program's refs are not copied at each doubling.
    if (refs_.capacity() - refs_.size() < count) refs_.reserve(std::max(refs_.size() + count, 2 * refs_.capacity()));
    // Through a volatile pointer, so that each instruction is a call: see
    // instruction() in program_graph_builder.h.
    static bool (MethodGraph::*volatile step)(std::pair<size_t, size_t>, const Value&, Jumps&) = &MethodGraph::instruction;
    for (size_t i = 0; i < count; ++i, ++order_)
      if (!(this->*step)({c, i}, list, jumps)) return false;
  }
  for (const auto& [node, where] : jumps) {
    const auto [c, target] = where;
    if (target < 0 || static_cast<uint64_t>(target) >= chain_sizes_[c]) continue;
    if (!budget_.spend(kObjectCost)) return false;
    edge(node, instruction_nodes_[chain_first[c] + static_cast<size_t>(target)], std::nullopt, true);
  }
  return true;
}

bool MethodGraph::instruction(std::pair<size_t, size_t> at, const Value& list, Jumps& jumps) {
  const auto [c, i] = at;
  instruction_nodes_.push_back(static_cast<uint32_t>(refs_.size()));
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
    member("opIndex", op);
    if (!use_args(node, call->get("args"))) return false;
  } else if (type == "DelegateCall") {
    const int64_t d = call->get_int("delegate_index");
    const TableValue* delegate = delegate_at(d);
    bool expanded = false;
    std::string note;
    if (options_.expand_delegates) {
      if (!delegate) note = "no delegate at index " + std::to_string(d);
      else if (!expand_delegate(id, at, *delegate, d, call->get("args"), &expanded, note)) return false;
      if (expanded) return true;
    }
    const std::optional<uint64_t> size = delegate ? blob_size(*delegate) : std::nullopt;
    std::string label = delegate && delegate->get("id").is_string() ? delegate->get("id").str() : "delegate #" + std::to_string(d);
    if (size) label += " (" + std::to_string(*size) + " bytes)";
    uint32_t node = add_node(id, "delegate", at, label);
    if (!delegate_members(delegate, d, size)) return false;
    if (options_.expand_delegates) member("expandNote", Json::string(note));
    if (!use_args(node, call->get("args"))) return false;
  } else if (type == "JumpFalseCall") {
    const int64_t cond = call->get_int("cond_value_index");
    const int64_t target = call->get_int("destination_instruction");
    uint32_t node = add_node(id, "jumpFalse", at,
                             "jump to " + std::to_string(target) + " unless v" + std::to_string(cond));
    member("cond", cond);
    member("target", target);
    if (!use(node, cond, false)) return false;
    jumps.push_back({node, {c, target}});
  } else if (type == "MoveCall") {
    const int64_t from = call->get_int("move_from"), to = call->get_int("move_to");
    uint32_t node = add_node(id, "move", at,
                             "move v" + std::to_string(from) + " to v" + std::to_string(to));
    member("from", from);
    member("to", to);
    if (!use(node, from, false)) return false;
    if (ValueInfo* info = value(to)) {
      if (!use(node, to, false)) return false;
      info->producer = node;
    }
  } else if (type == "FreeCall") {
    const int64_t v = call->get_int("value_index");
    uint32_t node = add_node(id, "free", at, "free v" + std::to_string(v));
    member("value", v);
    if (!use(node, v, false)) return false;
  } else {
    add_node(id, "unknown", at, "instruction without arguments");
  }
  return true;
}

const TableValue* MethodGraph::delegate_at(int64_t d) const {
  const Value& delegates = plan_.get("delegates");
  return d >= 0 && delegates.is_items() && static_cast<uint64_t>(d) < delegates.items().size()
             ? &delegates.items()[static_cast<size_t>(d)].table() : nullptr;
}

bool MethodGraph::delegate_members(const TableValue* delegate, int64_t d, std::optional<uint64_t> size) {
  member("backend", delegate ? opt_string(delegate->get("id")) : Json::null());
  member("delegateIndex", d);
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

std::optional<uint64_t> MethodGraph::blob_size(const TableValue& delegate) const {
  const Value& ref = delegate.get("processed");
  if (!ref.is_table()) return std::nullopt;
  const uint64_t index = ref.table().get_uint("index");
  const uint64_t location = ref.table().get_uint("location");
  const Value& list = pte_.program.get(location == code(DataLocation::INLINE) ? "backend_delegate_data" : "segments");
  if (location > code(DataLocation::SEGMENT) || !list.is_items() || index >= list.items().size()) return std::nullopt;
  const TableValue& entry = list.items()[static_cast<size_t>(index)].table();
  if (location == code(DataLocation::SEGMENT)) return entry.get_uint("size");
  const Value& data = entry.get("data");
  return data.is_scalars() ? data.scalars().size() : 0;
}

}  // namespace graph_build
}  // namespace etpack
