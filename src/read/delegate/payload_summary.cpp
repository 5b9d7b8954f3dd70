#include "read/delegate/payload_summary.h"

#include <set>

#include "model/scalar_type.h"

namespace etpack {
namespace {

const Value::Items kNone;
const Value::Items& items(const TableValue& t, const char* field) {
  const FieldDef* f = t.def->find(field);
  if (f == nullptr) return kNone;
  const Value& v = t.fields[f->id];
  return v.is_items() ? v.items() : kNone;
}

const TableValue* table(const Value& v) { return v.is_table() ? &v.table() : nullptr; }
const TableValue* table(const TableValue& t, const char* field) {
  const FieldDef* f = t.def->find(field);
  return f ? table(t.fields[f->id]) : nullptr;
}
const std::string* text(const TableValue& t, const char* field) {
  const FieldDef* f = t.def->find(field);
  return f && t.fields[f->id].is_string() ? &t.fields[f->id].str() : nullptr;
}

// A union field's member name ("XNNAdd") from its _type companion.
std::string union_member(const TableValue& t, const char* field) {
  const FieldDef* f = t.def->find(std::string(field) + "_type");
  if (f == nullptr || !t.fields[f->id].is_scalar() || f->union_def == nullptr) return "?";
  const char* name = f->union_def->name_of(static_cast<int64_t>(t.fields[f->id].scalar().u));
  return name ? name : "?";
}

// An enum field's name ("xnn_datatype_fp32"), its number when unnamed.
std::string enum_name(const TableValue& t, const char* field) {
  const FieldDef* f = t.def->find(field);
  if (f == nullptr) return "?";
  const int64_t v = t.get_int(field);  // absent: the schema's default
  const char* name = f->enum_def ? f->enum_def->name_of(v) : nullptr;
  return name ? name : std::to_string(v);
}

void bump(std::vector<std::pair<std::string, uint64_t>>& histogram, const std::string& name) {
  for (auto& [n, count] : histogram)
    if (n == name) return void(++count);
  histogram.emplace_back(name, 1);
}

struct Builder {
  PayloadSummary s;
  std::set<std::string> seen;
  void op(const std::string& name) { bump(s.operators, name); }
  void dtype(const std::string& name) { bump(s.dtypes, name); }
  void quant(const std::string& name) { bump(s.quantization, name); }
  void key(const std::string& k, std::optional<uint64_t> bytes) {
    if (seen.insert(k).second) s.named_keys.push_back({k, bytes});
  }
};

// XNNPACK looks a constant up when a tensor references it
// (constant_buffer_idx, or a per-channel scale_buffer_idx; 0 = none) and
// takes the named path when the entry's named_key field is present.
void xnnpack(const TableValue& g, Builder& b) {
  for (const Value& n : items(g, "xnodes"))
    if (const TableValue* node = table(n)) b.op(union_member(*node, "xnode_union"));
  std::set<uint64_t> referenced;
  for (const Value& v : items(g, "xvalues")) {
    const TableValue* value = table(v);
    const TableValue* u = value ? table(*value, "xvalue_union") : nullptr;
    if (u == nullptr) continue;
    const TableValue* tensor = u->def->name == "XNNTensorValue" ? u : table(*u, "tensor_value");
    if (tensor != nullptr) b.dtype(enum_name(*tensor, "datatype"));
    if (u->def->name == "XNNQuantizedTensorValue") b.quant(union_member(*u, "quant_params"));
    if (tensor != nullptr && tensor->get_uint("constant_buffer_idx") != 0) referenced.insert(tensor->get_uint("constant_buffer_idx"));
    const TableValue* q = u->def->find("quant_params") ? table(*u, "quant_params") : nullptr;
    if (q != nullptr && q->def->find("scale_buffer_idx") && q->get_uint("scale_buffer_idx") != 0)
      referenced.insert(q->get_uint("scale_buffer_idx"));
  }
  const Value::Items& constants = items(g, "constant_data");
  for (uint64_t i : referenced) {
    if (i >= constants.size() || !constants[i].is_table()) continue;
    const TableValue& c = constants[i].table();
    if (const std::string* k = text(c, "named_key")) b.key(*k, c.get_uint("size"));
  }
}

void vulkan(const TableValue& g, Builder& b) {
  for (const Value& n : items(g, "chain"))
    if (const TableValue* call = table(n)) b.op(text(*call, "name") ? *text(*call, "name") : "?");
  for (const Value& v : items(g, "values")) {
    const TableValue* value = table(v);
    const TableValue* tensor = value ? table(*value, "value") : nullptr;
    if (tensor != nullptr && tensor->def->name == "VkTensor") b.dtype(enum_name(*tensor, "datatype"));
  }
  for (const Value& c : items(g, "constants")) {
    const TableValue* bytes = table(c);
    if (bytes && text(*bytes, "named_key") && bytes->get_uint("offset") == UINT64_MAX)
      b.key(*text(*bytes, "named_key"), bytes->get_uint("length"));
  }
}

void mlx(const TableValue& g, Builder& b, uint64_t& nodes) {
  for (const Value& c : items(g, "instruction_chains")) {
    if (!c.is_table()) continue;
    for (const Value& i : items(c.table(), "instructions"))
      if (const TableValue* ins = table(i)) ++nodes, b.op(union_member(*ins, "op"));
  }
  for (const Value& m : items(g, "tensor_meta"))
    if (const TableValue* meta = table(m)) {  // ExecuTorch ScalarType codes
      const int64_t code = meta->get_int("scalar_type");
      const char* name = scalar_type_name(code);
      b.dtype(name ? name : std::to_string(code));
    }
  const uint64_t constants = g.get_uint("num_constant_tensors");
  for (const Value& s : items(g, "named_slots")) {
    const TableValue* slot = table(s);
    const TableValue* at = slot ? table(*slot, "slot") : nullptr;
    if (at && text(*slot, "name") && at->get_int("slot_type") == 0 && at->get_uint("idx") < constants)
      b.key(*text(*slot, "name"), std::nullopt);
  }
}

void native(const TableValue& g, Builder& b, uint64_t& nodes, uint64_t& values) {
  for (const Value& m : items(g, "methods")) {
    const TableValue* method = table(m);
    const TableValue* graph = method ? table(*method, "graph") : nullptr;
    if (graph == nullptr) continue;
    values += items(*graph, "tensor_values").size();
    for (const Value& v : items(*graph, "tensor_values")) {
      const TableValue* value = table(v);
      const TableValue* meta = value ? table(*value, "meta") : nullptr;
      if (meta == nullptr) continue;
      b.dtype(enum_name(*meta, "dtype"));
      if (const TableValue* q = table(*meta, "quant"); q && table(*q, "scheme")) b.quant(union_member(*q, "scheme"));
    }
    for (const Value& n : items(*graph, "nodes")) {
      const TableValue* node = table(n);
      if (node == nullptr || node->get_int("op_kind") != 0) continue;  // CALL_FUNCTION
      ++nodes;
      b.op(text(*node, "target") ? *text(*node, "target") : "?");
    }
    for (const Value& c : items(*method, "constants"))
      if (const TableValue* ref = table(c); ref && text(*ref, "data_key")) b.key(*text(*ref, "data_key"), std::nullopt);
  }
}

}  // namespace

PayloadSummary summarize_payload(const DelegatePayload& payload) {
  Builder b;
  b.s.kind = payload.kind_name;
  b.s.constant_bytes = payload.constant_bytes;
  b.s.model = payload.model;
  if (payload.root && payload.kind) {
    const TableValue& g = *payload.root;
    uint64_t nodes = 0, values = 0;
    switch (*payload.kind) {
      case PayloadKind::kXnnpack:
      case PayloadKind::kXnnpackLegacy:
        xnnpack(g, b), nodes = items(g, "xnodes").size(), values = items(g, "xvalues").size();
        break;
      case PayloadKind::kVulkan: vulkan(g, b), nodes = items(g, "chain").size(), values = items(g, "values").size(); break;
      case PayloadKind::kMps:
        for (const Value& n : items(g, "mps_nodes"))
          if (const TableValue* node = table(n)) b.op(union_member(*node, "mpsnode_union"));
        for (const Value& v : items(g, "mps_values"))
          if (const TableValue* tensor = table(v)) b.dtype(enum_name(*tensor, "datatype"));
        nodes = items(g, "mps_nodes").size(), values = items(g, "mps_values").size();
        break;
      case PayloadKind::kMlx: mlx(g, b, nodes), values = items(g, "tensor_meta").size(); break;
      case PayloadKind::kNative: native(g, b, nodes, values); break;
      default: break;
    }
    b.s.nodes = nodes;
    b.s.values = values;
  }
  if (payload.content) {
    if (const Json* ref = payload.content->find("reference")) {
      if (const Json* k = ref->find("key"); k && k->is_string()) b.key(k->text(), std::nullopt);
    }
    if (const Json* blocks = payload.content->find("blocks"); blocks && blocks->is_array()) {
      for (const Json& block : blocks->items())
        if (const Json* k = block.find("named_data_key"); k && k->is_string()) b.key(k->text(), std::nullopt);
    }
  }
  return std::move(b.s);
}

Json payload_summary_json(const PayloadSummary& s) {
  Json out = Json::object();
  out.set("kind", Json::string(s.kind));
  out.set("nodes", s.nodes ? Json::unsigned_integer(*s.nodes) : Json::null());
  out.set("values", s.values ? Json::unsigned_integer(*s.values) : Json::null());
  Json ops = Json::object();
  for (const auto& [name, count] : s.operators) ops.set(name, Json::unsigned_integer(count));
  out.set("operators", std::move(ops));
  for (const auto* h : {&s.dtypes, &s.quantization}) {
    Json counts = Json::object();
    for (const auto& [name, count] : *h) counts.set(name, Json::unsigned_integer(count));
    out.set(h == &s.dtypes ? "dtypes" : "quantization", std::move(counts));
  }
  out.set("constantBytes", Json::unsigned_integer(s.constant_bytes));
  Json keys = Json::array();
  for (const PayloadNamedKey& k : s.named_keys) {
    Json j = Json::object();
    j.set("key", Json::string(k.key));
    j.set("bytes", k.bytes ? Json::unsigned_integer(*k.bytes) : Json::null());
    keys.push(std::move(j));
  }
  out.set("namedKeys", std::move(keys));
  out.set("model", s.model ? *s.model : Json::null());
  return out;
}

}  // namespace etpack
