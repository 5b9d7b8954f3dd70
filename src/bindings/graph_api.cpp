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
#include <cstring>
#include <functional>
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

// A surrogate's 3-byte encoding cut by the end of a piece: the 1 or 2
// bytes of it the piece ends with (none otherwise).
size_t surrogate_prefix(const char* p, size_t n) {
  const auto b = [&](size_t k) { return static_cast<uint8_t>(p[n - k]); };
  if (n >= 1 && b(1) == 0xed) return 1;
  if (n >= 2 && b(2) == 0xed && b(1) >= 0xa0 && b(1) <= 0xbf) return 2;
  return 0;
}

// surrogates_escaped() over a text given in pieces: the bytes of a
// surrogate's encoding that a piece ends with are held for the next.
class SurrogateEscaper {
 public:
  using Out = std::function<void(const char*, size_t)>;
  explicit SurrogateEscaper(Out out) : out_(std::move(out)) {}
  void push(const char* p, size_t n) {
    if (held_.empty() && std::memchr(p, '\xed', n) == nullptr) return out_(p, n);  // almost always
    std::string text = held_ + std::string(p, n);
    const size_t hold = surrogate_prefix(text.data(), text.size());
    held_ = text.substr(text.size() - hold);
    text.resize(text.size() - hold);
    const std::string escaped = surrogates_escaped(std::move(text));
    out_(escaped.data(), escaped.size());
  }
  void finish() {  // what is held is no surrogate: as it is
    if (!held_.empty()) out_(held_.data(), held_.size());
    held_.clear();
  }

 private:
  Out out_;
  std::string held_;
};

// What a graph request asks for: the files, the method, the format's name
// and the graph's options.
struct GraphCall {
  FileSource pte;
  std::vector<std::pair<std::string, FileSource>> ptds;
  std::optional<std::string> method;
  std::string format;
  GraphOptions options;
};

Result<GraphCall> graph_call(const std::string& request_text) {
  ETP_ASSIGN(const Json request, parse_request(request_text));
  GraphCall call;
  ETP_ASSIGN(call.pte, graph_file(request.find("pte"), "pte"));
  if (const Json* list = request.find("ptds"); list && list->is_object()) {
    for (const auto& [name, file] : list->members()) {
      ETP_ASSIGN(FileSource source, graph_file(&file, "ptds['" + name + "']"));
      call.ptds.emplace_back(name, std::move(source));
    }
  }
  if (const Json* m = request.find("method"); m && m->is_string()) call.method = m->text();
  const Json* format = request.find("format");
  call.format = format && format->is_string() ? format->text() : "json";
  if (call.format != "json" && call.format != "dot" && call.format != "mermaid")
    return make_error(ErrorCode::kInvalidArgument, "format must be 'json', 'dot' or 'mermaid'");
  const Json* delegates = request.find("delegates");
  const std::string expand = delegates && delegates->is_string() ? delegates->text() : "collapse";
  if (expand != "collapse" && expand != "expand")
    return make_error(ErrorCode::kInvalidArgument, "delegates must be 'collapse' or 'expand'");
  call.options.json = call.format == "json";
  call.options.expand_delegates = expand == "expand";
  return call;
}

// The graph's text: its JSON (never streamed: no json_sink), DOT or Mermaid.
Result<std::string> graph_text(const GraphCall& call) {
  ETP_ASSIGN(ProgramGraph graph, graph_of(call.pte, call.ptds, call.method, call.options));
  if (call.format == "dot") return graph_dot(graph);
  if (call.format == "mermaid") return graph_mermaid(graph);
  return surrogates_escaped(std::move(graph.json));
}

Output* graph_js(std::string request_text, val host) {
  HostScope scope(host);
  return run_output([&](Output& out) -> Status {
    ETP_ASSIGN(const GraphCall call, graph_call(request_text));
    ETP_ASSIGN(std::string text, graph_text(call));
    out.set_json(std::move(text));
    return {};
  });
}

constexpr size_t kIndentSlice = size_t{64} << 10;

Output* graph_to_js(std::string request_text, val host, val write) {
  HostScope scope(host);
  return run_output([&](Output&) -> Status {
    ETP_ASSIGN(GraphCall call, graph_call(request_text));
    const auto sink = [&](const char* bytes, size_t size) {
      return write(val(emscripten::typed_memory_view(size, reinterpret_cast<const uint8_t*>(bytes)))).as<bool>();
    };
    if (call.format != "json") {
      ETP_ASSIGN(const std::string text, graph_text(call));
      for (size_t at = 0; at < text.size(); at += JsonIndenter::kChunk)
        if (!sink(text.data() + at, std::min(JsonIndenter::kChunk, text.size() - at))) break;
      return {};
    }
    // The JSON re-indented as it is made (GraphOptions::json_sink), or, when
    // it could not be streamed, from ProgramGraph::json once made, in slices
    // of kIndentSlice: each piece is a call of push(), as V8 runs a wasm
    // function as baseline code until it has been called enough, and a call
    // already running stays in it (no on-stack replacement for wasm): one
    // call for tens of MiB ran 2-3x slower than the optimized code. Called
    // through a volatile pointer: binaryen inlines a function with a single
    // caller into that caller. Nothing reaches `write` before graph_of has
    // succeeded: the indenter's first chunk is sent when full, and a
    // streamed graph fails before its first byte or not at all.
    static constexpr std::string_view kHead = "{\"schema\": 1, \"methods\": ";
    static void (JsonIndenter::*volatile push)(std::string_view) = &JsonIndenter::push;
    JsonIndenter indenter(sink, 1);
    indenter.raw("{\n  \"schema\": 1,\n  \"command\": \"graph\",\n  \"ok\": true,\n  \"methods\": ");
    SurrogateEscaper escaper([&](const char* p, size_t n) { (indenter.*push)(std::string_view(p, n)); });
    size_t head = 0;  // bytes of kHead met: they are replaced by the reply's head
    bool head_ok = true;
    const auto take = [&](const char* p, size_t n) {
      for (; head < kHead.size() && n; ++head, ++p, --n) head_ok = head_ok && *p == kHead[head];
      if (n) escaper.push(p, n);
    };
    call.options.json_sink = take;
    ETP_ASSIGN(ProgramGraph graph, graph_of(call.pte, call.ptds, call.method, call.options));
    for (size_t at = 0; !graph.streamed && at < graph.json.size(); at += kIndentSlice)
      take(graph.json.data() + at, std::min(kIndentSlice, graph.json.size() - at));
    if (!head_ok || head < kHead.size()) return make_error(ErrorCode::kInternal, "the graph's JSON has an unexpected head");
    escaper.finish();
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
