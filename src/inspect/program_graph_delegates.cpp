// A DelegateCall replaced by its payload's nodes and edges (graph's
// `--delegates expand`; program_graph.h says what is drawn,
// delegate_graph.h what each payload kind gives).
#include <unordered_map>

#include "inspect/program_graph_builder.h"
#include "read/delegate/delegate_blobs.h"

namespace etpack {
namespace graph_build {

const Expansion& MethodGraph::expansion(const TableValue& delegate, int64_t d) {
  auto found = expansions_.find(d);
  if (found != expansions_.end()) return *found->second;
  auto x = std::make_unique<Expansion>();
  const Value& id = delegate.get("id");
  const std::string backend = id.is_string() ? id.str() : "";
  std::optional<Blob> blob = delegate_blob_in_memory(file_, pte_, delegate);
  if (!blob) {
    x->note = "the processed blob could not be read (missing, out of the file, or larger than " +
              std::to_string(kMaxDecodedDelegateBytes) + " bytes)";
  } else if (auto payload = decode_delegate_in_program(*blob, backend); !payload.ok()) {
    x->note = "the payload does not decode: " + payload.error().message;
  } else {
    x->kind = payload->kind_name;
    x->graph = payload_graph(*payload);
    if (!x->graph) x->note = "a " + payload->kind_name + " payload has no graph to expand";
  }
  return *expansions_.emplace(d, std::move(x)).first->second;
}

bool MethodGraph::expand_delegate(const std::string& id, std::pair<size_t, size_t> at, const TableValue& delegate,
                                  int64_t d, const Value& args, bool* expanded, std::string& note) {
  *expanded = false;
  const Expansion& x = expansion(delegate, d);
  if (!x.graph) {
    note = x.note;
    return true;
  }
  const PayloadGraph& g = *x.graph;
  const size_t n = scalar_vector_length(args, BaseType::kInt);
  if (n != g.inputs.size() + g.outputs.size()) {
    note = "the call has " + std::to_string(n) + " args, the payload " + std::to_string(g.inputs.size()) +
           " inputs and " + std::to_string(g.outputs.size()) + " outputs";
    return true;
  }
  if (g.nodes.empty()) {
    note = "the payload has no nodes";
    return true;
  }
  uint64_t cost = n;
  for (const PayloadGraphNode& p : g.nodes) cost += (1 + p.inputs.size() + p.outputs.size()) * kObjectCost;
  if (!budget_.spend(cost)) return false;
  *expanded = true;
  // The payload's external values -> the program's, by position in args.
  std::unordered_map<std::string, int64_t> in, out;
  for (size_t k = 0; k < n; ++k) {
    const int64_t v = scalar_vector_int(args, BaseType::kInt, k);
    if (ValueInfo* info = value(v)) {
      if (!info->first) info->first = order_;
      info->last = order_;
    }
    if (k < g.inputs.size()) in.emplace(g.inputs[k], v);
    else out.emplace(g.outputs[k - g.inputs.size()], v);
  }
  const Value& backend = delegate.get("id");
  std::unordered_map<std::string, uint32_t> producer;  // payload value -> its node
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const PayloadGraphNode& p = g.nodes[k];
    const uint32_t node = add_node(id + ".n" + std::to_string(k), "delegateNode", at, p.op);
    member("backend", opt_string(backend));
    member("delegateIndex", d);
    member("payloadKind", Json::string(x.kind));
    member("payloadNode", u64(k));
    member("operator", Json::string(p.op));
    member("debugHandle", opt_u64(p.debug_handle));
    for (size_t i = 0; i < p.inputs.size(); ++i) {
      const std::string& key = p.inputs[i];
      bool again = false;  // one edge per value and node
      for (size_t j = 0; j < i && !again; ++j) again = p.inputs[j] == key;
      if (again) continue;
      if (auto made = producer.find(key); made != producer.end()) {
        if (made->second != node) payload_edge(made->second, node, key);
      } else if (auto ext = in.find(key); ext != in.end()) {
        if (!use(node, ext->second, false)) return false;
      }
    }
    for (const std::string& key : p.outputs) {
      producer[key] = node;
      if (auto ext = out.find(key); ext != out.end())
        if (ValueInfo* info = value(ext->second)) info->producer = node;
    }
  }
  return true;
}

}  // namespace graph_build
}  // namespace etpack
