// profile: an ETDump joined to the program that ran (issue 31). The file
// names no methods and no operators: each event carries only a chain index
// and an instruction id. The program supplies the rest: which method each
// block ran (the one whose chains hold every instruction the block's events
// name, with the instruction types their names imply), and for each event
// the instruction's operator ("aten::add.out": name.overload) or delegate
// (its backend id). Then per operator and per delegate the statistics the
// Python Inspector's table gives (count, total, min, p10, p50, p90, mean,
// max), over the calls in execute blocks, in the file's time unit.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "model/fb_value.h"
#include "ops/profile_stats.h"
#include "read/etdump_reader.h"

namespace etpack {

// A node of a delegate's decoded graph (ops/profile_delegates.h).
struct DelegateNode {
  uint64_t index = 0;    // in the payload's node list
  std::string op;        // its operator ("XNNFullyConnected", a Vulkan call's name)
};

// The nodes of delegate `delegate` of method `method` (execution_plan index)
// whose debug handle is `debug_handle` (none when it has no decoded graph).
using DelegateNodeLookup = std::function<std::vector<DelegateNode>(size_t method, int64_t delegate, int64_t debug_handle)>;
// The size at which a page of events is handed to ProfileOptions::event_pages.
inline constexpr size_t kProfilePageBytes = size_t{1} << 20;

struct ProfileOptions {
  // The method of each block in file order, as the user names it; nullopt
  // (or a list shorter than the blocks) leaves that block to inference.
  std::vector<std::optional<std::string>> methods;
  // The method of every block `methods` leaves unnamed (a one-method run).
  std::optional<std::string> all_blocks;
  // When set, a delegate-internal event whose delegate_debug_id_int is a
  // node's debug handle is joined to that node: "delegateNodes":
  // [{"index", "operator"}] (the DelegateCall it runs in must be known).
  DelegateNodeLookup delegate_nodes;
  // When set, each block's events are handed over as they are written, as
  // JSON arrays of about kProfilePageBytes each (the block's index, the
  // array's text, valid only during the call), in file order, and the
  // block's "events" in the returned text is []: the caller reads pages
  // while the join goes on, so the whole text is never held at once (a
  // million events are ~200 MB of it). Unset: the events are in the text.
  std::function<void(size_t block, const std::string& events)> event_pages;
  size_t event_page_bytes = kProfilePageBytes;  // a page is handed over once it holds this many
};

// The join and its statistics as JSON text (see npm/index.d.ts, Profile):
// {"blocks": [...], "operators": [...], "delegates": [...], "warnings": [...]}
// (a block's events go to options.event_pages when it is set).
// Errors: kInvalidArgument for a named method the program lacks.
Result<std::string> profile_json(const EtdumpFile& etdump, const TableValue& program, const ProfileOptions& options);

}  // namespace etpack
