// graph_dot and graph_mermaid: the graph JSON (inspect/program_graph.h) as
// text other tools render. Labels come from the file (operator, backend and
// tensor names) and are escaped here for each syntax.
#include <algorithm>
#include <cstdint>
#include <string>

#include "ops/graph.h"

namespace etpack {
namespace {

// One piece of a label: a code point of valid UTF-8 (its bytes), or the
// visible escape of bytes that are not (a lone surrogate's 3-byte encoding
// as \udxxx, any other stray byte as \xNN), so no label carries invalid
// UTF-8 into a renderer and none is silently changed.
struct Piece {
  uint32_t code_point = 0;
  std::string bytes;   // of the code point, when valid
  std::string escape;  // the escape text, when not
};

// Strict UTF-8 decoding (no overlongs, no surrogates, at most U+10FFFF):
// fn(piece) for each piece, up to kMaxLabelChars pieces; true when cut.
template <typename F>
bool for_each_piece(const std::string& s, F&& fn) {
  static const char* kHex = "0123456789abcdef";
  size_t count = 0;
  for (size_t i = 0; i < s.size();) {
    if (count++ == kMaxLabelChars) return true;
    const auto b = [&](size_t k) { return static_cast<uint8_t>(s[i + k]); };
    const uint8_t c = b(0);
    size_t len = c < 0x80 ? 1 : (c >= 0xc2 && c <= 0xdf) ? 2 : (c >= 0xe0 && c <= 0xef) ? 3 : (c >= 0xf0 && c <= 0xf4) ? 4 : 0;
    bool valid = len > 0 && i + len <= s.size();
    for (size_t k = 1; valid && k < len; ++k) valid = (b(k) & 0xc0) == 0x80;
    if (valid && len == 3 && c == 0xe0 && b(1) < 0xa0) valid = false;   // overlong
    if (valid && len == 4 && c == 0xf0 && b(1) < 0x90) valid = false;   // overlong
    if (valid && len == 4 && c == 0xf4 && b(1) > 0x8f) valid = false;   // past U+10FFFF
    Piece p;
    if (valid && len == 3 && c == 0xed && b(1) >= 0xa0) {
      // A surrogate, as JS strings with a lone one are written: \udxxx.
      const uint32_t cp = ((c & 0x0f) << 12) | ((b(1) & 0x3f) << 6) | (b(2) & 0x3f);
      p.escape = "\\u";
      for (int shift = 12; shift >= 0; shift -= 4) p.escape.push_back(kHex[(cp >> shift) & 15]);
      i += 3;
    } else if (!valid) {
      p.escape = std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
      i += 1;
    } else {
      uint32_t cp = len == 1 ? c : c & (0xff >> (len + 1));
      for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (b(k) & 0x3f);
      p.code_point = cp;
      p.bytes = s.substr(i, len);
      i += len;
    }
    fn(p);
  }
  return false;
}

const char* dot_shape(const std::string& kind) {
  if (kind == "delegate") return "box3d";
  if (kind == "delegateNode") return "component";
  if (kind == "jumpFalse") return "diamond";
  if (kind == "move" || kind == "free") return "ellipse";
  if (kind == "input") return "invhouse";
  if (kind == "output") return "house";
  if (kind == "constant" || kind == "mutable" || kind == "external") return "cylinder";
  return "box";
}

// Mermaid node shapes: open and close around the quoted label.
std::pair<const char*, const char*> mermaid_shape(const std::string& kind) {
  if (kind == "jumpFalse") return {"{", "}"};
  if (kind == "input" || kind == "output") return {"([", "])"};
  if (kind == "constant" || kind == "mutable" || kind == "external") return {"[(", ")]"};
  if (kind == "move" || kind == "free") return {"(", ")"};
  return {"[", "]"};
}

// A Mermaid id: the method's prefix and the node id's letters and digits.
std::string mermaid_id(const std::string& prefix, const std::string& id) {
  std::string out = prefix;
  for (char c : id) out.push_back((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c : '_');
  return out;
}

}  // namespace

std::string dot_label(const std::string& text) {
  // Most labels are short printable ASCII without a quote or a backslash.
  if (text.size() <= kMaxLabelChars &&
      std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; }))
    return "\"" + text + "\"";
  std::string out = "\"";
  const bool cut = for_each_piece(text, [&](const Piece& p) {
    if (!p.escape.empty()) {
      out += "\\" + p.escape;  // DOT's \\ shows one backslash
    } else if (p.code_point == '"') {
      out += "\\\"";
    } else if (p.code_point == '\\') {
      out += "\\\\";
    } else if (p.code_point == '\n') {
      out += "\\n";
    } else if (p.code_point < 0x20 || p.code_point == 0x7f) {
      static const char* kHex = "0123456789abcdef";
      out += std::string("\\\\x") + kHex[p.code_point >> 4] + kHex[p.code_point & 15];
    } else {
      out += p.bytes;
    }
  });
  if (cut) out += "\u2026";
  return out + "\"";
}

std::string mermaid_label(const std::string& text) {
  // Inside a quoted Mermaid label only entity codes are safe for anything
  // but plain letters and a little punctuation: #<decimal>; per code point.
  std::string out = "\"";
  const auto put = [&](uint32_t cp) {
    const bool plain = (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') ||
                       (cp != 0 && std::string(" ._:,/+-=*()").find(static_cast<char>(cp)) != std::string::npos && cp < 0x80);
    if (plain) out.push_back(static_cast<char>(cp));
    else out += "#" + std::to_string(cp) + ";";
  };
  const bool cut = for_each_piece(text, [&](const Piece& p) {
    if (!p.escape.empty()) {
      for (char c : p.escape) put(static_cast<uint8_t>(c));
    } else {
      put(p.code_point);
    }
  });
  if (cut) put(0x2026);
  return out + "\"";
}

std::string graph_dot(const ProgramGraph& graph) {
  std::string out = "digraph program {\n  graph [fontname=\"Helvetica\", rankdir=TB];\n"
                    "  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=8];\n";
  for (size_t m = 0; m < graph.methods.size(); ++m) {
    const GraphMethodRefs& method = graph.methods[m];
    const std::string prefix = "m" + std::to_string(m) + ".";
    out += "  subgraph cluster_" + std::to_string(m) + " {\n    label=" + dot_label(method.title) + ";\n";
    for (const GraphNodeRef& n : method.nodes)
      out += "    " + dot_label(prefix + n.id) + " [label=" + dot_label(n.label) + ", shape=" + dot_shape(n.kind) + "];\n";
    out += "  }\n";
    for (const GraphEdgeRef& e : method.edges) {
      out += "  " + dot_label(prefix + method.nodes[e.from].id) + " -> " + dot_label(prefix + method.nodes[e.to].id) +
             " [label=" + dot_label(edge_text(method, e)) +
             (e.kind == GraphEdgeKind::kControl ? ", style=dashed" : e.kind == GraphEdgeKind::kPayload ? ", color=gray40" : "") + "];\n";
    }
  }
  return out + "}\n";
}

std::string graph_mermaid(const ProgramGraph& graph) {
  std::string out = "flowchart TB\n";
  for (size_t m = 0; m < graph.methods.size(); ++m) {
    const GraphMethodRefs& method = graph.methods[m];
    const std::string prefix = "m" + std::to_string(m) + "_";
    out += "  subgraph m" + std::to_string(m) + " [" + mermaid_label(method.title) + "]\n";
    for (const GraphNodeRef& n : method.nodes) {
      const auto [open, close] = mermaid_shape(n.kind);
      out += "    " + mermaid_id(prefix, n.id) + open + mermaid_label(n.label) + close + "\n";
    }
    out += "  end\n";
    for (const GraphEdgeRef& e : method.edges) {
      out += "  " + mermaid_id(prefix, method.nodes[e.from].id) + (e.kind == GraphEdgeKind::kControl ? " -.->|" : " -->|") + mermaid_label(edge_text(method, e)) +
             "| " + mermaid_id(prefix, method.nodes[e.to].id) + "\n";
    }
  }
  return out;
}

}  // namespace etpack
