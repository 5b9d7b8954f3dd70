#include "ops/profile_delegates.h"

#include <map>
#include <memory>
#include <utility>

#include "read/delegate/delegate_blobs.h"
#include "read/delegate/delegate_payload.h"

namespace etpack {
namespace {

using NodesByHandle = std::multimap<int64_t, DelegateNode>;

std::string union_member(const TableValue& t, const char* field) {
  const FieldDef* f = t.def->find(field);
  if (f == nullptr || f->union_def == nullptr) return "?";
  const char* name = f->union_def->name_of(t.get_int(field));
  return name ? name : "?";
}

// XNNPACK: xnodes[i].debug_handle; Vulkan: chain[i].node_id.
NodesByHandle nodes_of(const DelegatePayload& payload) {
  NodesByHandle out;
  if (!payload.root || !payload.kind) return out;
  const TableValue& g = *payload.root;
  const bool xnnpack = *payload.kind == PayloadKind::kXnnpack || *payload.kind == PayloadKind::kXnnpackLegacy;
  const bool vulkan = *payload.kind == PayloadKind::kVulkan;
  if (!xnnpack && !vulkan) return out;
  const Value& list = g.get(xnnpack ? "xnodes" : "chain");
  for (size_t i = 0; list.is_items() && i < list.items().size(); ++i) {
    if (!list.items()[i].is_table()) continue;
    const TableValue& node = list.items()[i].table();
    DelegateNode n;
    n.index = i;
    if (xnnpack) n.op = union_member(node, "xnode_union_type");
    else n.op = node.get("name").is_string() ? node.get("name").str() : "?";
    out.emplace(static_cast<int64_t>(node.get_uint(xnnpack ? "debug_handle" : "node_id")), std::move(n));
  }
  return out;
}

}  // namespace

DelegateNodeLookup delegate_node_lookup(const FileSource& pte, const PteFile& file) {
  auto index = std::make_shared<std::map<std::pair<size_t, int64_t>, NodesByHandle>>();
  const Value& plans = file.program.get("execution_plan");
  for (size_t p = 0; plans.is_items() && p < plans.items().size(); ++p) {
    if (!plans.items()[p].is_table()) continue;
    const Value& delegates = plans.items()[p].table().get("delegates");
    for (size_t d = 0; delegates.is_items() && d < delegates.items().size(); ++d) {
      if (!delegates.items()[d].is_table()) continue;
      const TableValue& delegate = delegates.items()[d].table();
      std::optional<Blob> blob = delegate_blob_in_memory(pte, file, delegate);
      if (!blob) continue;
      const Value& id = delegate.get("id");
      auto payload = decode_delegate_in_program(*blob, id.is_string() ? id.str() : std::string());
      if (!payload.ok()) continue;
      NodesByHandle nodes = nodes_of(*payload);
      if (!nodes.empty()) index->emplace(std::make_pair(p, static_cast<int64_t>(d)), std::move(nodes));
    }
  }
  return [index](size_t method, int64_t delegate, int64_t handle) {
    std::vector<DelegateNode> out;
    auto it = index->find({method, delegate});
    if (it == index->end()) return out;
    auto [first, last] = it->second.equal_range(handle);
    for (; first != last; ++first) out.push_back(first->second);
    return out;
  };
}

}  // namespace etpack
