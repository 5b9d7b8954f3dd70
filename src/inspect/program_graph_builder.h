// One method's plan graph as program_graph() (program_graph.h) builds it,
// shared by the builder's source files; not part of the API:
//   program_graph.cpp               the driver: run() per method, the values' table, program_graph()
//   program_graph_text.cpp          nodes and edges written as JSON text, and the refs DOT/Mermaid draw
//   program_graph_instructions.cpp  the walk over the chains: each instruction's node and the edges of its values
//   program_graph_delegates.cpp     a DelegateCall replaced by its payload's nodes (--delegates expand)
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/json.h"
#include "core/result.h"
#include "core/text_out.h"
#include "model/scalar_type.h"
#include "format/file_source.h"
#include "inspect/delegate_graph.h"
#include "inspect/program_graph.h"
#include "read/program_tensors.h"
#include "read/pte_reader.h"
#include "read/work_budget.h"

namespace etpack {
namespace graph_build {

inline Json u64(uint64_t v) { return Json::unsigned_integer(v); }
inline Json opt_u64(std::optional<uint64_t> v) { return v ? u64(*v) : Json::null(); }
inline Json opt_string(const Value& v) { return v.is_string() ? Json::string(v.str()) : Json::null(); }

// Work units one node or edge costs (a read element costs 1), as inspect
// charges its JSON objects.
constexpr uint64_t kObjectCost = 16;
constexpr uint32_t kNoNode = UINT32_MAX;

inline std::string type_text(const TensorView& t) {
  const char* name = scalar_type_name(t.scalar_type);
  return std::string(name ? name : "?") + (t.rank ? shape_text(t.sizes) : "");
}

// What the builder knows of one EValue.
struct ValueInfo {
  std::string type = "None";     // the KernelTypes member's name
  const TableValue* val = nullptr;  // the member's table
  std::optional<TensorView> tensor;
  const Value* items = nullptr;  // a TensorList's / OptionalTensorList's items
  uint32_t producer = kNoNode;
  uint64_t stamp = 0;            // 1 + the last node that named it
  std::optional<uint64_t> first, last;
  std::string edge_json;         // an edge's dtype and shape members (made when first written)
};

// A delegate's payload graph, decoded once per delegate index.
struct Expansion {
  std::optional<PayloadGraph> graph;
  std::string kind;  // the payload kind's name
  std::string note;  // why there is no graph
};

// An upper bound of the work units MethodGraph::run() spends on
// execution_plan[index] without expanding delegates (every value an
// instruction names counted as an edge), counted up to just past `limit`
// (bounded work on a hostile file). Keep in sync with the builder's
// spend() calls: program_graph() streams the JSON only when the sum of
// these fits the budget, so that no error can come after the first byte.
uint64_t work_bound(const TableValue& plan, uint64_t limit);

// The graph of execution_plan[index]; run() writes its JSON to `out`.
class MethodGraph {
 public:
  MethodGraph(const FileSource& file, const PteFile& pte, const PtdKeyFiles& keys, size_t index, WorkBudget& budget,
              const GraphOptions& options, TextOut& out)
      : json_(out), file_(file), pte_(pte), keys_(keys), index_(index),
        plan_(pte.program.get("execution_plan").items()[index].table()), budget_(budget), options_(options) {}

  Result<GraphMethodRefs> run();

 private:
  TextOut& json_;  // the program's JSON text: this method's written by run() (nodes as they are made)

  // program_graph.cpp
  // One ValueInfo per EValue (tensors viewed once). False when the budget ran out.
  bool read_values();
  ValueInfo* value(int64_t v) {
    return v >= 0 && static_cast<uint64_t>(v) < values_.size() ? &values_[static_cast<size_t>(v)] : nullptr;
  }
  // The method's "values" array's items, written to json_.
  void values_json();
  // The method's "edges" array's items, written to json_, one edge_json()
  // call each.
  void edges_json();
  void edge_json(const GraphEdgeRef& e);

  // program_graph_text.cpp
  // A new node: its JSON object stays open in json_ (members may
  // still be added with member()) until the next one starts. Written as
  // text, never as a Json tree: 20,000 nodes' trees would cost the wasm
  // heap tens of MiB.
  uint32_t add_node(std::string id, const char* kind, std::optional<std::pair<size_t, size_t>> at, std::string label);
  // One more member of the open node.
  void member(const char* key, const Json& v);
  void member(const char* key, int64_t v);
  // Closes the open node's JSON object, if any.
  void flush();
  // An input or output node ("in<position>" / "out<position>") for value `v`;
  // an input node produces its value.
  uint32_t io_node(const char* kind, const char* prefix, size_t position, int64_t v);
  // Constants, mutable buffers with initial data and external tensors: the
  // value's own node is its producer.
  void data_nodes();
  // The .ptd file holding an external tensor's key (keys_), or null.
  Json external_file(const TensorView& t) const;
  // An edge from node `from` to node `to` carrying value `v` (a control edge
  // carries none); its JSON is written by edges_json().
  void edge(uint32_t from, uint32_t to, std::optional<int64_t> v, bool control = false);
  // An edge inside an expanded delegate, carrying the payload's value `key`.
  void payload_edge(uint32_t from, uint32_t to, const std::string& key);

  // program_graph_instructions.cpp
  // Instruction `node` names value `v`: an edge from its producer (once
  // per instruction), or, for an unproduced tensor and `may_produce`, the
  // instruction becomes its producer.
  bool use(uint32_t node, int64_t v, bool may_produce);
  // The args of a KernelCall or DelegateCall, tensor lists' items included.
  bool use_args(uint32_t node, const Value& args);
  // A node per instruction of every chain, in order, then the control edges
  // of JumpFalse calls. False when the budget ran out.
  bool instructions();
  // Instruction `at` (chain, index) of the chain's `list`: its node and the
  // edges of its values; a JumpFalse's added to `jumps`. False when the
  // budget ran out. One call per instruction, through a volatile pointer
  // (edge_json() too): V8 runs a wasm function as baseline code until it
  // has been called enough and never switches a running call to optimized
  // code, so a loop over 100,000 items in a function called once ran as
  // baseline code throughout; and binaryen would inline a function with a
  // single caller back into it.
  using Jumps = std::vector<std::pair<uint32_t, std::pair<size_t, int64_t>>>;  // node, (chain, target)
  bool instruction(std::pair<size_t, size_t> at, const Value& list, Jumps& jumps);
  // plan_.delegates[d], or null when out of range.
  const TableValue* delegate_at(int64_t d) const;
  // The open delegate node's members but its args. False when the budget ran out.
  bool delegate_members(const TableValue* delegate, int64_t d, std::optional<uint64_t> size);
  // The processed blob's size, inline or in a segment (as inspect reports it).
  std::optional<uint64_t> blob_size(const TableValue& delegate) const;

  // program_graph_delegates.cpp
  // Instruction `id` at `at`, a DelegateCall of delegate `d` with `args`,
  // as its payload's nodes. Sets *expanded; when false, `note` says why.
  // False when the budget ran out.
  bool expand_delegate(const std::string& id, std::pair<size_t, size_t> at, const TableValue& delegate, int64_t d,
                       const Value& args, bool* expanded, std::string& note);
  const Expansion& expansion(const TableValue& delegate, int64_t d);

  const FileSource& file_;
  const PteFile& pte_;
  const PtdKeyFiles& keys_;
  size_t index_;
  const TableValue& plan_;
  WorkBudget& budget_;
  const GraphOptions& options_;
  std::vector<ValueInfo> values_;
  bool open_ = false;               // the last node's JSON object is still open
  std::vector<GraphNodeRef> refs_;  // every node so far
  std::vector<GraphEdgeRef> edges_;
  std::vector<std::string> payload_keys_;  // of kPayload edges
  std::vector<uint64_t> chain_sizes_;
  std::vector<uint32_t> instruction_nodes_;  // the (first) node of each instruction, in order
  std::unordered_map<int64_t, std::unique_ptr<Expansion>> expansions_;
  uint64_t order_ = 0;
};

}  // namespace graph_build
}  // namespace etpack
