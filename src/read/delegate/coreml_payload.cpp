// Core ML: the in-memory filesystem (upstream backends/apple/coreml/runtime/
// inmemoryfs: file data, then the directory as JSON stored byte-reversed at
// the blob's end, then possibly zero bytes) and the multifunction reference
// ("CMJR" + JSON naming the named-data entry that holds the model).
#include <algorithm>
#include <string>
#include <vector>

#include "core/utf8_text.h"
#include "read/delegate/delegate_payload.h"

namespace etpack {
namespace {

Json u64(uint64_t v) { return Json::unsigned_integer(v); }
constexpr size_t kMaxJsonDepth = 64;
constexpr size_t kMaxTreeDepth = 256;

Json text(std::string_view bytes) {
  std::string valid;
  append_decoded_utf8(bytes, valid);
  return Json::string(std::move(valid));
}

struct Node {
  std::string name;
  uint64_t kind = 0;  // 0 file, 1 directory
  uint64_t offset = 0, size = 0;
  std::vector<std::pair<std::string, uint64_t>> children;  // sorted by name
};

// Where the reversed JSON starts: the index of the byte holding its last
// character `}`, found by reading the blob backwards as JSON text and
// counting braces outside strings (as upstream's reader does).
Result<uint64_t> reversed_json_start(const uint8_t* data, uint64_t end) {
  size_t depth = 0;
  bool in_string = false, escaped = false;
  for (uint64_t i = end; i-- > 0;) {
    const uint8_t c = data[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (depth == 0) return payload_error("a '}' closes nothing in the reversed directory JSON", i);
      if (--depth == 0) return i;
    }
  }
  return payload_error("the reversed directory JSON at the payload's end is cut short (unbalanced braces)", 0);
}

Result<uint64_t> number(const Json* v, const char* what, uint64_t at) {
  std::optional<uint64_t> n = v ? v->as_uint64() : std::nullopt;
  if (!n) return payload_error(std::string("directory node ") + what + " is not an unsigned integer", at);
  return *n;
}

Result<std::vector<Node>> read_nodes(const Json& doc, uint64_t data_end, uint64_t at) {
  const Json* nodes = doc.is_object() ? doc.find("nodes") : nullptr;
  if (nodes == nullptr || !nodes->is_array() || nodes->items().empty())
    return payload_error("the directory JSON has no \"nodes\" list", at);
  std::vector<Node> out;
  out.reserve(nodes->items().size());  // bounded: parsed from the blob
  for (const Json& n : nodes->items()) {
    Node node;
    const Json* name = n.is_object() ? n.find("name") : nullptr;
    const Json* region = n.is_object() ? n.find("dataRegion") : nullptr;
    const Json* children = n.is_object() ? n.find("children") : nullptr;
    if (!name || !name->is_string() || !region || !region->is_object() || !children || !children->is_object())
      return payload_error("directory node " + std::to_string(out.size()) + " lacks name, dataRegion or children", at);
    node.name = name->text();
    ETP_ASSIGN(node.kind, number(n.find("kind"), "kind", at));
    ETP_ASSIGN(node.offset, number(region->find("offset"), "dataRegion.offset", at));
    ETP_ASSIGN(node.size, number(region->find("size"), "dataRegion.size", at));
    if (node.kind > 1) return payload_error("directory node \"" + node.name + "\" has kind " + std::to_string(node.kind), at);
    if (node.kind == 0 && (node.offset > data_end || node.size > data_end - node.offset))
      return payload_error("file \"" + node.name + "\" at " + std::to_string(node.offset) + " + " +
                               std::to_string(node.size) + " runs into the directory at byte " + std::to_string(data_end),
                           at);
    for (const auto& [child, index] : children->members()) {
      ETP_ASSIGN(uint64_t i, number(&index, "child index", at));
      if (i >= nodes->items().size())
        return payload_error("child \"" + child + "\" of \"" + node.name + "\" is node " + std::to_string(i) + " of " +
                                 std::to_string(nodes->items().size()),
                             at);
      node.children.emplace_back(child, i);
    }
    std::sort(node.children.begin(), node.children.end());
    out.push_back(std::move(node));
  }
  return out;
}

struct Walk {
  const std::vector<Node>& nodes;
  uint64_t at;
  std::vector<bool> seen;
  std::vector<std::pair<uint64_t, uint64_t>> file_order;  // (offset, index)
  std::vector<Json> file_items;

  Result<Json> tree(uint64_t index, const std::string& path, size_t depth) {
    if (depth > kMaxTreeDepth) return payload_error("the directory nests deeper than " + std::to_string(kMaxTreeDepth), at);
    if (seen[index]) return payload_error("directory node " + std::to_string(index) + " is reached twice", at);
    seen[index] = true;
    const Node& n = nodes[index];
    Json out = Json::object();
    out.set("index", u64(index));
    out.set("name", text(n.name));
    out.set("kind", Json::string(n.kind == 0 ? "file" : "directory"));
    out.set("path", text(path));
    if (n.kind == 0) {
      out.set("offset", u64(n.offset));
      out.set("size", u64(n.size));
      Json f = Json::object();
      f.set("path", text(path));
      f.set("index", u64(index));
      f.set("offset", u64(n.offset));
      f.set("size", u64(n.size));
      file_order.emplace_back(n.offset, file_items.size());
      file_items.push_back(std::move(f));
      return out;
    }
    Json children = Json::array();
    for (const auto& [name, child] : n.children) {
      ETP_ASSIGN(Json c, tree(child, path.empty() ? name : path + "/" + name, depth + 1));
      children.push(std::move(c));
    }
    out.set("children", std::move(children));
    return out;
  }
};

// The text of the root's file `name`, or null.
Json root_file_text(const std::vector<Node>& nodes, const uint8_t* data, const char* name) {
  for (const auto& [child, index] : nodes.back().children)
    if (child == name && nodes[index].kind == 0)
      return text(std::string_view(reinterpret_cast<const char*>(data + nodes[index].offset), nodes[index].size));
  return Json::null();
}

Result<DelegatePayload> decode_inmemoryfs(const Blob& blob) {
  const uint8_t* data = blob.data();
  uint64_t end = blob.size();
  while (end > 0 && data[end - 1] == 0) --end;
  if (end == 0 || data[end - 1] != '{')
    return payload_error("no reversed directory JSON at the payload's end (its last non-zero byte is not '{')", end);
  ETP_ASSIGN(uint64_t start, reversed_json_start(data, end));
  std::string json_text(reinterpret_cast<const char*>(data + start), end - start);
  std::reverse(json_text.begin(), json_text.end());
  auto doc = parse_json(json_text, kMaxJsonDepth);
  if (!doc.ok()) return payload_error("the directory JSON does not parse: " + doc.error().message, start);
  ETP_ASSIGN(std::vector<Node> nodes, read_nodes(*doc, start, start));
  Walk walk{nodes, start, std::vector<bool>(nodes.size(), false), {}, {}};
  ETP_ASSIGN(Json tree, walk.tree(nodes.size() - 1, "", 0));
  std::sort(walk.file_order.begin(), walk.file_order.end());
  Json files = Json::array();
  uint64_t data_end = 0;
  for (const auto& [offset, i] : walk.file_order) {
    data_end = std::max(data_end, offset + walk.file_items[i].find("size")->as_uint64().value_or(0));
    files.push(walk.file_items[i]);
  }
  DelegatePayload out;
  out.header = Json::object();
  out.header.set("format", Json::string("inmemoryfs (no header; reversed JSON metadata at the end)"));
  out.header.set("blob_size", u64(blob.size()));
  out.header.set("metadata_offset", u64(start));
  out.header.set("metadata_size", u64(end - start));
  out.header.set("trailing_zero_bytes", u64(blob.size() - end));
  out.header.set("data_end", u64(data_end));
  out.header.set("padding_before_metadata", u64(start - data_end));
  out.header.set("node_count", u64(nodes.size()));
  out.header.set("file_count", u64(files.items().size()));
  Json content = Json::object();
  content.set("root_name", text(nodes.back().name));
  content.set("tree", std::move(tree));
  content.set("files", std::move(files));
  content.set("metadata_json_text", text(json_text));
  content.set("coreml_metadata_json_text", root_file_text(nodes, data, "metadata.json"));
  content.set("coreml_debug_info_json_text", root_file_text(nodes, data, "debug_info.json"));
  out.model = coreml_model_facts(content, blob);
  out.content = std::move(content);
  return out;
}

Result<DelegatePayload> decode_reference(const Blob& blob) {
  constexpr uint64_t kJsonOffset = 4;  // after "CMJR"
  const std::string_view json_text(reinterpret_cast<const char*>(blob.data()) + kJsonOffset, blob.size() - kJsonOffset);
  auto doc = parse_json(json_text, kMaxJsonDepth);
  if (!doc.ok()) return payload_error("the CMJR reference JSON does not parse: " + doc.error().message, kJsonOffset);
  const Json* key = doc->is_object() ? doc->find("key") : nullptr;
  if (key == nullptr || !key->is_string()) return payload_error("the CMJR reference names no \"key\"", kJsonOffset);
  DelegatePayload out;
  out.header = Json::object();
  out.header.set("format", Json::string("CMJR + JSON reference"));
  out.header.set("magic", Json::string("CMJR"));
  out.header.set("blob_size", u64(blob.size()));
  out.header.set("json_offset", u64(kJsonOffset));
  out.header.set("json_size", u64(json_text.size()));
  out.header.set("named_data_key", *key);
  Json content = Json::object();
  content.set("magic", Json::string("CMJR"));
  content.set("reference_json_text", text(json_text));
  content.set("reference", *doc);
  out.content = std::move(content);
  return out;
}

}  // namespace

Result<DelegatePayload> decode_coreml_payload(const Blob& blob, PayloadKind kind) {
  return kind == PayloadKind::kCoremlReference ? decode_reference(blob) : decode_inmemoryfs(blob);
}

}  // namespace etpack
