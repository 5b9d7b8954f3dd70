#include "inspect/delegate_graph.h"

#include <set>
#include <string_view>

#include "format/payload_kinds.h"

namespace etpack {
namespace {

const Value::Items kNone;
const Value kAbsent;

const Value& field(const TableValue& t, std::string_view name) {
  const FieldDef* f = t.def->find(name);
  return f ? t.fields[f->id] : kAbsent;
}
const Value::Items& items(const TableValue& t, std::string_view name) {
  const Value& v = field(t, name);
  return v.is_items() ? v.items() : kNone;
}
const TableValue* table(const Value& v) { return v.is_table() ? &v.table() : nullptr; }
const TableValue* table(const TableValue& t, std::string_view name) { return table(field(t, name)); }
const std::string* text(const TableValue& t, std::string_view name) {
  const Value& v = field(t, name);
  return v.is_string() ? &v.str() : nullptr;
}
bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) { return s.size() >= p.size() && s.substr(s.size() - p.size()) == p; }

// A scalar field's value, its default when absent (flatbuffers omit
// defaults: XNNPACK's value id 0 is often not stored).
int64_t scalar_of(const TableValue& t, const FieldDef& f) {
  const Value& v = t.fields[f.id];
  if (!v.is_scalar()) return f.default_integer;
  return is_signed_integer(f.type) ? v.scalar().i : static_cast<int64_t>(v.scalar().u);
}

// A union field's member table and its name ("XNNAdd").
std::pair<const TableValue*, std::string> union_of(const TableValue& t, std::string_view name) {
  const FieldDef* f = t.def->find(std::string(name) + "_type");
  const TableValue* member = table(t, name);
  if (f == nullptr || member == nullptr || !t.fields[f->id].is_scalar() || f->union_def == nullptr) return {member, "?"};
  const char* n = f->union_def->name_of(static_cast<int64_t>(t.fields[f->id].scalar().u));
  return {member, n ? n : "?"};
}

// XNNPACK and MPS: ids in *_id / *_ids fields of a node's union member.
PayloadGraphNode id_node(const TableValue& member, std::string op, bool unsigned_ids, size_t max_inputs) {
  PayloadGraphNode node;
  node.op = std::move(op);
  size_t inputs_seen = 0;
  const auto add = [&](const std::string& name, int64_t id) {
    const bool out = starts_with(name, "output");
    if (unsigned_ids ? static_cast<uint64_t>(id) == UINT32_MAX : id < 0) return;
    (out ? node.outputs : node.inputs).push_back(std::to_string(id));
  };
  for (const FieldDef& f : member.def->fields) {
    if (f.deprecated) continue;
    if (is_scalar(f.type) && !f.is_enum && ends_with(f.name, "_id")) {
      if (!starts_with(f.name, "output") && starts_with(f.name, "input") && ++inputs_seen > max_inputs) continue;
      add(f.name, scalar_of(member, f));
    } else if (f.type == BaseType::kVector && is_scalar(f.element) && (ends_with(f.name, "_ids") || f.name == "indices_id")) {
      const Value& v = member.fields[f.id];
      for (size_t i = 0; i < scalar_vector_length(v, f.element); ++i) add(f.name, scalar_vector_int(v, f.element, i));
    }
  }
  return node;
}

std::vector<std::string> id_list(const TableValue& g, std::string_view name) {
  std::vector<std::string> out;
  const FieldDef* f = g.def->find(name);
  if (f == nullptr) return out;
  const Value& v = g.fields[f->id];
  for (size_t i = 0; i < scalar_vector_length(v, f->element); ++i) out.push_back(std::to_string(scalar_vector_int(v, f->element, i)));
  return out;
}

PayloadGraph xnnpack_or_mps(const TableValue& g, bool xnnpack) {
  PayloadGraph out;
  for (const Value& n : items(g, xnnpack ? "xnodes" : "mps_nodes")) {
    const TableValue* node = table(n);
    if (node == nullptr) continue;
    auto [member, name] = union_of(*node, xnnpack ? "xnode_union" : "mpsnode_union");
    if (member == nullptr) continue;
    size_t max_inputs = SIZE_MAX;
    if (xnnpack && starts_with(name, "XNNConcatenate") && name.size() == 15) max_inputs = static_cast<size_t>(name[14] - '0');
    PayloadGraphNode p = id_node(*member, name, xnnpack, max_inputs);
    if (xnnpack && field(*node, "debug_handle").is_scalar()) p.debug_handle = node->get_uint("debug_handle");
    out.nodes.push_back(std::move(p));
  }
  out.inputs = id_list(g, "input_ids");
  out.outputs = id_list(g, "output_ids");
  return out;
}

PayloadGraph vulkan(const TableValue& g) {
  PayloadGraph out;
  out.inputs = id_list(g, "input_ids");
  out.outputs = id_list(g, "output_ids");
  const Value::Items& values = items(g, "values");
  std::set<int64_t> known;  // produced so far, or never produced (inputs, constants)
  for (const std::string& k : out.inputs) known.insert(std::stoll(k));
  const auto tensor_at = [&](int64_t id) -> const TableValue* {
    if (id < 0 || static_cast<uint64_t>(id) >= values.size()) return nullptr;
    const TableValue* v = table(values[static_cast<size_t>(id)]);
    if (v == nullptr) return nullptr;
    auto [member, name] = union_of(*v, "value");
    return name == "VkTensor" ? member : nullptr;
  };
  for (const Value& c : items(g, "chain")) {
    const TableValue* call = table(c);
    if (call == nullptr) continue;
    PayloadGraphNode node;
    node.op = text(*call, "name") ? *text(*call, "name") : "?";
    const FieldDef* f = call->def->find("args");
    const Value& args = f ? call->fields[f->id] : kAbsent;
    for (size_t i = 0; f && i < scalar_vector_length(args, f->element); ++i) {
      const int64_t id = scalar_vector_int(args, f->element, i);
      const TableValue* tensor = tensor_at(id);
      if (tensor == nullptr) continue;
      if (tensor->get_int("constant_id") >= 0) known.insert(id);
      (known.insert(id).second ? node.outputs : node.inputs).push_back(std::to_string(id));
    }
    out.nodes.push_back(std::move(node));
  }
  return out;
}

// MLX: a Tid is "t<idx>", a Vid "v<idx>".
void mlx_refs(const TableValue& member, PayloadGraphNode& node) {
  for (const FieldDef& f : member.def->fields) {
    const Value& v = member.fields[f.id];
    const bool out = starts_with(f.name, "out");
    const auto slot = [&](const TableValue& s) {
      const char* prefix = s.def->name == "Tid" ? "t" : s.def->name == "Vid" ? "v" : nullptr;
      if (prefix) (out ? node.outputs : node.inputs).push_back(prefix + std::to_string(s.get_uint("idx")));
    };
    if (const TableValue* t = table(v)) {
      if (t->def->is_struct) {
        slot(*t);
      } else if (t->def->name == "VidOrTid" || t->def->name == "IntOrVid" || t->def->name == "FloatOrVid") {
        const bool is_vid = t->get_uint("is_vid") != 0;
        const TableValue* s = table(*t, is_vid ? "vid" : "tid");
        if (s != nullptr && (is_vid || t->def->name == "VidOrTid")) slot(*s);
      }
    } else if (v.is_items()) {
      for (const Value& item : v.items())
        if (const TableValue* t = table(item); t && t->def->is_struct) slot(*t);
    }
  }
}

PayloadGraph mlx(const TableValue& g) {
  PayloadGraph out;
  const Value::Items& chains = items(g, "instruction_chains");
  const uint64_t main = g.get_uint("main_chain_idx");
  if (main < chains.size() && chains[main].is_table()) {
    for (const Value& i : items(chains[main].table(), "instructions")) {
      const TableValue* ins = table(i);
      if (ins == nullptr) continue;
      auto [member, name] = union_of(*ins, "op");
      PayloadGraphNode node;
      node.op = name;
      if (member) mlx_refs(*member, node);
      out.nodes.push_back(std::move(node));
    }
  }
  for (const char* map : {"input_map", "output_map"}) {
    for (const Value& s : items(g, map)) {
      const TableValue* slot = table(s);
      if (slot == nullptr) continue;
      const bool tensor = slot->get_int("slot_type") == 0;
      (std::string_view(map) == "input_map" ? out.inputs : out.outputs)
          .push_back((tensor ? "t" : "v") + std::to_string(slot->get_uint("idx")));
    }
  }
  return out;
}

PayloadGraph native(const TableValue& program) {
  PayloadGraph out;
  const Value::Items& methods = items(program, "methods");
  const TableValue* method = methods.empty() ? nullptr : table(methods[0]);
  const TableValue* g = method ? table(*method, "graph") : nullptr;
  if (g == nullptr) return out;
  for (const char* list : {"inputs", "outputs"})
    for (const Value& name : items(*g, list))
      if (name.is_string()) (std::string_view(list) == "inputs" ? out.inputs : out.outputs).push_back(name.str());
  for (const Value& n : items(*g, "nodes")) {
    const TableValue* node = table(n);
    if (node == nullptr || node->get_int("op_kind") != 0) continue;  // CALL_FUNCTION only
    PayloadGraphNode p;
    p.op = text(*node, "target") ? *text(*node, "target") : "?";
    for (const Value& a : items(*node, "inputs")) {
      const TableValue* named = table(a);
      const TableValue* arg = named ? table(*named, "arg") : nullptr;
      auto [member, kind] = arg ? union_of(*arg, "value") : std::pair<const TableValue*, std::string>{nullptr, ""};
      if (member == nullptr) continue;
      if (kind == "TensorArg" && text(*member, "name")) p.inputs.push_back(*text(*member, "name"));
      if (kind == "TensorListArg" || kind == "OptionalTensorListArg")
        for (const Value& name : items(*member, "names"))
          if (name.is_string()) p.inputs.push_back(name.str());
    }
    for (const Value& o : items(*node, "outputs"))
      if (const TableValue* output = table(o); output && text(*output, "name")) p.outputs.push_back(*text(*output, "name"));
    out.nodes.push_back(std::move(p));
  }
  return out;
}

}  // namespace

std::optional<PayloadGraph> payload_graph(const DelegatePayload& payload) {
  if (!payload.root || !payload.kind) return std::nullopt;
  switch (*payload.kind) {
    case PayloadKind::kXnnpack:
    case PayloadKind::kXnnpackLegacy: return xnnpack_or_mps(*payload.root, true);
    case PayloadKind::kMps: return xnnpack_or_mps(*payload.root, false);
    case PayloadKind::kVulkan: return vulkan(*payload.root);
    case PayloadKind::kMlx: return mlx(*payload.root);
    case PayloadKind::kNative: return native(*payload.root);
    default: return std::nullopt;
  }
}

}  // namespace etpack
