// The nodes and edges inside a decoded delegate payload, for graph's
// `--delegates expand` (program_graph.h): per node its operator and the
// payload values it reads and writes, and the payload's external values in
// the order the DelegateCall's args bind them (inputs first, then outputs,
// as every backend's execute() takes them).
//
// Values are keyed by text: the payload's own value id ("3"), or for MLX a
// tensor slot ("t3") or a value slot ("v3"), or for the native graph the
// tensor's name. Per kind (../shared/delegates/README.md):
//   XNNPACK  xnodes; ids in fields named *_id (outputs: output*); an id of
//            XNN_INVALID_VALUE_ID (no bias) is none; XNNConcatenateN reads
//            input1..inputN only. Externals: input_ids, output_ids.
//   MPS      mps_nodes; *_id and *_ids fields (outputs: output*); negative
//            ids are none. Externals: input_ids, output_ids.
//   Vulkan   chain; an OperatorCall's args: the first call naming a tensor
//            value that is neither an external input nor a constant
//            produces it (as the program graph decides an out argument);
//            other values (Int, lists) make no edges. Externals: input_ids,
//            output_ids.
//   MLX      the main chain's instructions; Tid / Vid fields (outputs: out*)
//            and the vid or tid of VidOrTid, IntOrVid and FloatOrVid fields.
//            Externals: input_map, output_map.
//   native   the first method's CALL_FUNCTION nodes; tensor arguments by
//            name read, outputs written. Externals: graph inputs, outputs.
// Other kinds (Core ML, QNN, Ethos-U, opaque) have no graph: nullopt.
// Bounded by the decoded payload (already bounded by its blob's size).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "read/delegate/delegate_payload.h"

namespace etpack {

struct PayloadGraphNode {
  std::string op;                            // "XNNFullyConnected", "aten.add.Tensor", ...
  std::vector<std::string> inputs, outputs;  // value keys, in field order
  std::optional<uint64_t> debug_handle;      // XNNPACK's debug_handle, when stored
};

struct PayloadGraph {
  std::vector<PayloadGraphNode> nodes;
  std::vector<std::string> inputs, outputs;  // external values, in args order
};

std::optional<PayloadGraph> payload_graph(const DelegatePayload& payload);

}  // namespace etpack
