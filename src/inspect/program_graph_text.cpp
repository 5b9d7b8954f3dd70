// Nodes and edges of a method's plan graph, written as JSON text as they are
// made (program_graph_builder.h), with the refs the DOT and Mermaid writers draw.
#include "inspect/program_graph_builder.h"

#include "inspect/inspect_details.h"

namespace etpack {
namespace graph_build {

uint32_t MethodGraph::add_node(std::string id, const char* kind, std::optional<std::pair<size_t, size_t>> at, std::string label) {
  flush();
  if (options_.json) {
    TextOut& out = json_;
    if (!refs_.empty()) out.lit(", ");
    out.lit("{\"id\": ");
    out.json_string(id);
    out.lit(", \"kind\": \"");
    out.raw(kind);
    if (at) {
      out.lit("\", \"instruction\": {\"chain\": ");
      out.unsigned_number(at->first);
      out.lit(", \"index\": ");
      out.unsigned_number(at->second);
      out.lit("}, \"order\": ");
      out.unsigned_number(order_);
    } else {
      out.lit("\", \"instruction\": null, \"order\": null");
    }
    out.lit(", \"label\": ");
    out.json_string(label);
    open_ = true;
  }
  refs_.push_back({std::move(id), kind, std::move(label)});
  return static_cast<uint32_t>(refs_.size() - 1);
}

// Numbers, nulls and strings (all but compile specs) written here, without
// going through write_json.
void MethodGraph::member(const char* key, const Json& v) {
  if (!open_) return;
  json_.lit(", \"");
  json_.raw(key);
  json_.lit("\": ");
  if (v.is_number()) json_.raw(v.text());
  else if (v.is_null()) json_.lit("null");
  else if (v.is_string()) json_.json_string(v.text());
  else json_.json(v);
}

void MethodGraph::member(const char* key, int64_t v) {
  if (!open_) return;
  json_.lit(", \"");
  json_.raw(key);
  json_.lit("\": ");
  json_.number(v);
}

void MethodGraph::flush() {
  if (open_) json_.put('}');
  open_ = false;
}

uint32_t MethodGraph::io_node(const char* kind, const char* prefix, size_t position, int64_t v) {
  ValueInfo* info = value(v);
  std::string label = std::string(kind) + " v" + std::to_string(v);
  if (info && info->tensor) label += ": " + type_text(*info->tensor);
  else if (info) label += ": " + info->type;
  uint32_t node = add_node(prefix + std::to_string(position), kind, std::nullopt, label);
  member("value", v);
  member("position", u64(position));
  if (info && info->producer == kNoNode && std::string(kind) == "input") info->producer = node;
  return node;
}

void MethodGraph::data_nodes() {
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

Json MethodGraph::external_file(const TensorView& t) const {
  if (!t.fqn) return Json::null();
  auto found = keys_.find(*t.fqn);
  return found == keys_.end() ? Json::null() : Json::string(found->second);
}

void MethodGraph::edge(uint32_t from, uint32_t to, std::optional<int64_t> v, bool control) {
  GraphEdgeRef ref;
  ref.from = from;
  ref.to = to;
  ref.kind = control ? GraphEdgeKind::kControl : GraphEdgeKind::kData;
  ref.has_value = v.has_value();
  ref.value = v.value_or(0);
  edges_.push_back(ref);
}

void MethodGraph::payload_edge(uint32_t from, uint32_t to, const std::string& key) {
  GraphEdgeRef ref;
  ref.from = from;
  ref.to = to;
  ref.kind = GraphEdgeKind::kPayload;
  ref.value = static_cast<int64_t>(payload_keys_.size());
  payload_keys_.push_back(key);
  edges_.push_back(ref);
}

void MethodGraph::edges_json() {
  // Through a volatile pointer, so that each edge is a call: see
  // instruction() in program_graph_builder.h.
  static void (MethodGraph::*volatile write)(const GraphEdgeRef&) = &MethodGraph::edge_json;
  for (size_t k = 0; k < edges_.size(); ++k) {
    if (k) json_.lit(", ");
    (this->*write)(edges_[k]);
  }
}

void MethodGraph::edge_json(const GraphEdgeRef& e) {
  TextOut& out = json_;
  out.lit("{\"from\": ");
  out.json_string(refs_[e.from].id);
  out.lit(", \"to\": ");
  out.json_string(refs_[e.to].id);
  out.lit(", \"value\": ");
  if (e.has_value) out.number(e.value);
  else out.lit("null");
  ValueInfo* info = e.has_value ? value(e.value) : nullptr;
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
    }
    out.raw(info->edge_json);
  } else {
    out.lit(", \"dtype\": null, \"shape\": null");
  }
  if (e.kind == GraphEdgeKind::kPayload) {
    out.lit(", \"payloadValue\": ");
    out.json_string(payload_keys_[static_cast<size_t>(e.value)]);
  }
  if (e.kind == GraphEdgeKind::kControl) out.lit(", \"kind\": \"control\"}");
  else out.lit(", \"kind\": \"data\"}");
}

}  // namespace graph_build

std::string edge_text(const GraphMethodRefs& method, const GraphEdgeRef& edge) {
  if (edge.kind == GraphEdgeKind::kControl) return "false";
  if (edge.kind == GraphEdgeKind::kPayload) {
    const auto k = static_cast<size_t>(edge.value);
    return k < method.payload_keys.size() ? method.payload_keys[k] : "";
  }
  std::string text = "v" + std::to_string(edge.has_value ? edge.value : 0);
  if (edge.has_value && edge.value >= 0 && static_cast<uint64_t>(edge.value) < method.value_types.size())
    text += method.value_types[static_cast<size_t>(edge.value)];
  return text;
}

}  // namespace etpack
