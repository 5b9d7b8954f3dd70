// The embind surface of graph (issue 30): `graph(request, host)` with
// {"pte": file, "ptds": {name: file}, "method": s | null,
//  "format": "json" | "dot" | "mermaid", "delegates": "collapse" | "expand"}, files as the glue's fileRequest
// writes them ({"head", "file"}: only heads are read). The Output's text is
// the graph's JSON (ops/graph.h, inspect/program_graph.h), or the DOT or
// Mermaid text itself. `graphTo(request, host, write)` streams the same
// text to write(Uint8Array) in chunks (a view of the heap, valid during the
// call; write returns false to stop), JSON re-indented as the CLI prints a
// reply ({schema, command: "graph", ok: true, methods}, 2 spaces, then a
// newline), and returns an Output holding only the error, if any. Kept
// beside api.cpp, in its own EMSCRIPTEN_BINDINGS block.
#include <algorithm>
#include <string_view>

#include <emscripten/bind.h>

#include "bindings/host_call.h"
#include "bindings/request.h"
#include "core/json_indent.h"
#include "ops/graph.h"

namespace etpack::bindings {
namespace {

using emscripten::val;

Result<FileSource> graph_file(const Json* j, const std::string& what) {
  const Json* head = j ? j->find("head") : nullptr;
  const Json* file = j ? j->find("file") : nullptr;
  if (head == nullptr || file == nullptr) return make_error(ErrorCode::kInvalidArgument, what + " needs head and file");
  FileSource source;
  ETP_ASSIGN(source.head, blob_from_json(*head));
  ETP_ASSIGN(source.file, blob_from_json(*file));
  return source;
}

// JSON text from write_json holds names' bytes as they are. A lone
// surrogate's 3-byte encoding (ED A0..BF xx: how a JS string with one
// reaches a file) becomes the \udxxx escape, so JSON.parse gives back the
// JS string the name came from, never U+FFFD. Such bytes occur only inside
// JSON strings (the writer's own text is ASCII).
std::string surrogates_escaped(std::string text) {
  static const char* kHex = "0123456789abcdef";
  if (text.find('\xed') == std::string::npos) return text;  // no surrogate: no copy
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto b = [&](size_t k) { return static_cast<uint8_t>(text[i + k]); };
    if (b(0) == 0xed && i + 2 < text.size() && b(1) >= 0xa0 && b(1) <= 0xbf && (b(2) & 0xc0) == 0x80) {
      const uint32_t cp = 0xd000 | ((b(1) & 0x3f) << 6) | (b(2) & 0x3f);
      out += "\\u";
      for (int shift = 12; shift >= 0; shift -= 4) out.push_back(kHex[(cp >> shift) & 15]);
      i += 2;
      continue;
    }
    out.push_back(text[i]);
  }
  return out;
}

// The graph's text and its format's name.
Result<std::pair<std::string, std::string>> graph_text(const std::string& request_text) {
  ETP_ASSIGN(const Json request, parse_request(request_text));
  ETP_ASSIGN(FileSource pte, graph_file(request.find("pte"), "pte"));
  std::vector<std::pair<std::string, FileSource>> ptds;
  if (const Json* list = request.find("ptds"); list && list->is_object()) {
    for (const auto& [name, file] : list->members()) {
      ETP_ASSIGN(FileSource source, graph_file(&file, "ptds['" + name + "']"));
      ptds.emplace_back(name, std::move(source));
    }
  }
  std::optional<std::string> method;
  if (const Json* m = request.find("method"); m && m->is_string()) method = m->text();
  const Json* format = request.find("format");
  const std::string name = format && format->is_string() ? format->text() : "json";
  if (name != "json" && name != "dot" && name != "mermaid")
    return make_error(ErrorCode::kInvalidArgument, "format must be 'json', 'dot' or 'mermaid'");
  const Json* delegates = request.find("delegates");
  const std::string expand = delegates && delegates->is_string() ? delegates->text() : "collapse";
  if (expand != "collapse" && expand != "expand")
    return make_error(ErrorCode::kInvalidArgument, "delegates must be 'collapse' or 'expand'");
  GraphOptions options;
  options.json = name == "json";
  options.expand_delegates = expand == "expand";
  ETP_ASSIGN(ProgramGraph graph, graph_of(pte, ptds, method, options));
  std::string text = name == "dot" ? graph_dot(graph) : name == "mermaid" ? graph_mermaid(graph) : surrogates_escaped(std::move(graph.json));
  return std::make_pair(std::move(text), name);
}

Output* graph_js(std::string request_text, val host) {
  HostScope scope(host);
  return run_output([&](Output& out) -> Status {
    ETP_ASSIGN(auto made, graph_text(request_text));
    out.set_json(std::move(made.first));
    return {};
  });
}

Output* graph_to_js(std::string request_text, val host, val write) {
  HostScope scope(host);
  return run_output([&](Output&) -> Status {
    ETP_ASSIGN(auto made, graph_text(request_text));
    std::string text = std::move(made.first);
    const auto sink = [&](const char* bytes, size_t size) {
      return write(val(emscripten::typed_memory_view(size, reinterpret_cast<const uint8_t*>(bytes)))).as<bool>();
    };
    if (made.second != "json") {
      for (size_t at = 0; at < text.size(); at += JsonIndenter::kChunk)
        if (!sink(text.data() + at, std::min(JsonIndenter::kChunk, text.size() - at))) break;
      return {};
    }
    static constexpr std::string_view kHead = "{\"schema\": 1, \"methods\": ";
    if (text.compare(0, kHead.size(), kHead) != 0) return make_error(ErrorCode::kInternal, "the graph's JSON has an unexpected head");
    JsonIndenter indenter(sink, 1);
    indenter.raw("{\n  \"schema\": 1,\n  \"command\": \"graph\",\n  \"ok\": true,\n  \"methods\": ");
    indenter.push(std::string_view(text).substr(kHead.size()));
    indenter.raw("\n");
    indenter.flush();
    return {};
  });
}

}  // namespace
}  // namespace etpack::bindings

EMSCRIPTEN_BINDINGS(executorch_pack_graph) {
  using namespace emscripten;
  using namespace etpack::bindings;
  function("graph", &graph_js, allow_raw_pointers());
  function("graphTo", &graph_to_js, allow_raw_pointers());
}
