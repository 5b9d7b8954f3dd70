// graph: the plan graph of a .pte (inspect/program_graph.h), its external
// tensors resolved against the .ptd files given, as JSON ({"schema": 1,
// ...}), Graphviz DOT or Mermaid text (issue 30).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"
#include "format/file_source.h"
#include "inspect/program_graph.h"

namespace etpack {

enum class GraphFormat : uint8_t { kJson, kDot, kMermaid };

// Reads `pte` (only its head) and the heads of `ptds` (name, file), and
// returns the graph of every method, or of the one named `method`. The
// first .ptd holding a key is the one an external tensor names.
// Errors: those of read_pte_program / read_ptd_table (kMalformedFile
// naming the offset; a .ptd's prefixed with its name), kInvalidArgument
// for a method the program does not have, kResourceLimit (program_graph).
// The JSON text is ProgramGraph::json (inspect/program_graph.h), made only
// when options.json; options.expand_delegates draws delegates' payloads.
Result<ProgramGraph> graph_of(const FileSource& pte, const std::vector<std::pair<std::string, FileSource>>& ptds,
                              const std::optional<std::string>& method, const GraphOptions& options = {});

// The graph as a Graphviz digraph (one cluster per method) or a Mermaid
// flowchart (one subgraph per method). Names from the file are untrusted:
// every label is escaped for its syntax (quotes, backslashes, control
// characters, invalid UTF-8 and lone surrogates become visible escapes) and
// cut to kMaxLabelChars code points; ids are made by the writer.
std::string graph_dot(const ProgramGraph& graph);
std::string graph_mermaid(const ProgramGraph& graph);
constexpr size_t kMaxLabelChars = 120;

// DOT's and Mermaid's escaping of one label, exposed for tests.
std::string dot_label(const std::string& text);
std::string mermaid_label(const std::string& text);

}  // namespace etpack
