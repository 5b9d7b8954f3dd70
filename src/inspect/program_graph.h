// The plan graph of a decoded .pte: per method, one node per instruction,
// nodes for its inputs, outputs, constants, mutable buffers and external
// tensors, and edges for the values that flow between them (issue 30).
// Input is untrusted: indices out of range make no node or edge, and every
// element read and every node and edge made is charged to a WorkBudget
// sized by the file, so the graph is linear in the file even when hostile
// tables share one long vector.
//
// program_graph returns (keys in this order):
// {
//   "schema": 1,
//   "methods": [{
//     "name": s | null, "index": n,        // the execution plan's index
//     "chains": [n, ...],                  // instructions per chain
//     "instructionCount": n,
//     "nodes": [{"id": s, "kind": k, "instruction": {"chain", "index"} | null,
//                "order": n | null,        // the instruction's position over all chains, in order
//                "label": s,               // what a picture shows (operator, backend, ...)
//                ...}],                    // per kind, below
//     "edges": [{"from": id, "to": id, "value": n | null, "dtype": s | null, "shape": [n, ...] | null,
//                "kind": "data" | "control"}],   // control: JumpFalse to its destination
//     "values": [{"index", "type": "Tensor" | "Int" | ... | "None", "dtype", "shape",
//                 "name": fqn | null,
//                 "memory": {"id", "offset", "size": n | null} | null,  // allocation_info: the memory plan
//                 "data": {"kind": "constant" | "mutable" | "external", "where": s | null,
//                          "offset": n | null, "size": n | null,        // absolute file offset, bytes
//                          "key": s | null, "file": s | null} | null,   // external: .ptd key, the file holding it
//                 "live": {"first": order, "last": order} | null}]     // instructions using it
//   }]
// }
// Node kinds and their members:
//   "kernel":   "operator": s | null, "overload": s | null, "opIndex": n, "args": [value, ...]
//   "delegate": "backend": s | null, "delegateIndex": n, "blobSize": n | null,
//               "compileSpecs": [{"key", "bytes", "value"}] (inspect_details.h), "args": [value, ...]
//   "jumpFalse": "cond": value, "target": instruction index in the chain
//   "move":     "from": value, "to": value
//   "free":     "value": value
//   "unknown":  an instruction without arguments the schema knows
//   "input", "output": "value": n, "position": n (in the method's inputs/outputs)
//   "constant", "mutable", "external": "value": n ("external" also "key", "file")
// Ids are unique within a method: "c<chain>.i<index>", "in<position>",
// "out<position>", "v<value>".
//
// Edges: a value's producer is its input node, its constant / mutable /
// external node, or else the first KernelCall or DelegateCall that names a
// tensor (or a tensor list's item) no one produced yet (an out argument),
// or the MoveCall moving into it; each later instruction naming the value
// gets an edge from the producer (once per instruction), and so does each
// output node. Scalars that no input or instruction produces (literals such
// as alpha = 1) make no edges; nodes still list them in "args".
//
// Delegates expanded (GraphOptions::expand_delegates; inspect/
// delegate_graph.h says what each payload kind gives): a DelegateCall whose
// payload has a graph is replaced by one node per payload node,
//   "delegateNode": "backend", "delegateIndex", "payloadKind", "payloadNode": n,
//                   "operator": s, "debugHandle": n | null
// with ids "c<chain>.i<index>.n<node>" (the call's instruction and order),
// and edges between them carrying the payload's values ("value": null,
// "payloadValue": key, "kind": "data"). The payload's external inputs are
// the call's args in order and its outputs the args after them: a node
// reading an external input gets the edge from that program value's
// producer, and the node writing an external output becomes that value's
// producer. A call that cannot be expanded stays one "delegate" node with
// "expandNote": why (an opaque or graphless payload kind, a blob that
// cannot be read or decoded, args that do not match the payload's external
// values); without the option no node has "expandNote".
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/json.h"
#include "core/result.h"
#include "format/file_source.h"
#include "read/pte_reader.h"

namespace etpack {

// A .ptd key -> the name of the data file that holds it (the first given).
using PtdKeyFiles = std::unordered_map<std::string, std::string>;

// What program_graph() builds: the JSON text (unless only the refs are
// asked for) and the delegates' expansion.
struct GraphOptions {
  bool json = true;               // false: only the refs (DOT, Mermaid)
  bool expand_delegates = false;  // --delegates expand (below)
  // When set (with json), the JSON text may go to json_sink in pieces (each
  // valid only during the call) as it is made, instead of into
  // ProgramGraph::json: only when nothing can fail any more (the method
  // exists, the work is within the budget; not with expand_delegates), so
  // an error always comes before the first byte. ProgramGraph::streamed
  // says which; a graph of 100,000 instructions then never holds its text
  // (tens of MiB), whose first writing into new memory cost as much as
  // making it.
  std::function<void(const char*, size_t)> json_sink;
};

// The graph as its JSON text (the shape above, written as it is built: a
// tree of a 20,000-instruction program's nodes would take the wasm heap
// past a hundred MiB) and, per method, what the DOT and Mermaid writers
// draw: node ids, kinds and labels, edges by node index (a few bytes each:
// their text is made when drawn, by edge_text()).
struct GraphNodeRef {
  std::string id;
  const char* kind = "";
  std::string label;
};
enum class GraphEdgeKind : uint8_t { kData, kControl, kPayload };
struct GraphEdgeRef {
  uint32_t from = 0, to = 0;  // indices into the method's nodes
  GraphEdgeKind kind = GraphEdgeKind::kData;
  bool has_value = false;     // kData: a value index is known
  int64_t value = 0;          // kData: the program value; kPayload: index into payload_keys
};
struct GraphMethodRefs {
  std::string title;  // the method's name, or "(unnamed method N)"
  std::vector<GraphNodeRef> nodes;
  std::vector<GraphEdgeRef> edges;
  std::vector<std::string> value_types;   // per program value: " Float[2, 2]" for a tensor, else ""
  std::vector<std::string> payload_keys;  // the delegate-internal values kPayload edges carry
};
struct ProgramGraph {
  std::string json;       // empty when streamed
  bool streamed = false;  // the JSON went to GraphOptions::json_sink
  std::vector<GraphMethodRefs> methods;
};

// What an edge's label shows: "v3 Float[2, 2]", "false" for a control
// edge, the payload's value key ("4", "t3", a tensor name) for an edge
// inside an expanded delegate.
std::string edge_text(const GraphMethodRefs& method, const GraphEdgeRef& edge);

// `pte` was read from `file` (read_pte_program). `method`: only the method
// of that name. Errors: kInvalidArgument when no method has that name;
// kResourceLimit when hostile sharing would make the graph unreasonably
// large for the file's size.
Result<ProgramGraph> program_graph(const FileSource& file, const PteFile& pte, const PtdKeyFiles& keys,
                                   const std::optional<std::string>& method, const GraphOptions& options = {});

}  // namespace etpack
