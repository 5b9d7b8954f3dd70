// Nodes and edges of a method's plan graph, written as JSON text as they are
// made (program_graph_builder.h), with the refs the DOT and Mermaid writers draw.
#include "inspect/program_graph_builder.h"

#include "inspect/inspect_details.h"

namespace etpack {
namespace graph_build {

uint32_t MethodGraph::add_node(std::string id, const char* kind, std::optional<std::pair<size_t, size_t>> at, std::string label) {
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

void MethodGraph::member(const char* key, const Json& v) {
  nodes_text_ += ", \"";
  nodes_text_ += key;
  nodes_text_ += "\": ";
  write_json(v, nodes_text_);
}

void MethodGraph::flush() {
  if (open_) nodes_text_ += "}";
  open_ = false;
}

uint32_t MethodGraph::io_node(const char* kind, const char* prefix, size_t position, int64_t v) {
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

}  // namespace graph_build
}  // namespace etpack
