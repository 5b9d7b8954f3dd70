// The ETDump (.etdp) reader: the profile the runtime's event tracer writes
// (upstream devtools/etdump, ETDumpGen on flatcc). A 4-byte little-endian
// size prefix, then a flatbuffer (identifier ED00) whose offsets count from
// byte 4. Decoded with the generic bounds-checked decoder over our own
// schema (schema/etdump.fbs); scalars the writer omitted read as their
// schema defaults, 64-bit fields exactly.
// Errors: kMalformedFile naming the byte offset, kUnsupportedVersion (an
// ED.. identifier other than ED00, or a version other than 0),
// kLimitExceeded / kResourceLimit from the decoder's budgets.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/blob.h"
#include "core/result.h"
#include "model/fb_value.h"

namespace etpack {

// A ProfileEvent with the schema's defaults applied. Its strings and bytes
// are views into the file's bytes (EtdumpFile::bytes keeps them alive): a
// million events are ~60 bytes each, with no copy of a name.
struct EtdumpProfileEvent {
  size_t event_index = 0;  // its place in the block's `events` (all kinds)
  std::string_view name;
  int32_t chain_index = 0;
  int32_t instruction_id = -1;
  int32_t delegate_debug_id_int = -1;
  std::optional<std::string_view> delegate_debug_id_str;
  std::optional<std::string_view> delegate_debug_metadata;  // raw bytes
  uint64_t start_time = 0;
  uint64_t end_time = 0;
};

// One RunData: a method load ("Default") or one execution ("Execute").
struct EtdumpBlock {
  std::string name;
  int32_t bundled_input_index = -1;
  size_t event_count = 0;                      // events of every kind
  std::vector<EtdumpProfileEvent> profile;     // profile events, file order
};

struct EtdumpFile {
  TableValue root;  // the decoded ETDump table (empty from read_etdump_runs)
  std::vector<EtdumpBlock> blocks;
  Blob bytes;       // the file: the events' views point into it
};

// How many first bytes hold the whole flatbuffer: 4 + the size prefix.
// `probe` holds at least the first 4 bytes (fewer: kMalformedFile).
Result<uint64_t> etdump_head_size(const Blob& probe, uint64_t file_size);

// Reads a whole .etdp held in memory: the decoded tree (every table checked)
// and its runs.
Result<EtdumpFile> read_etdump(const Blob& file);

// Reads only the runs and their profile events, walking the flatbuffer
// (read/etdump_runs.cpp) without the decoded tree (~0.5 KiB an event): what
// profile needs. `root` is left empty. Every offset it follows is checked
// as the decoder checks it (kMalformedFile naming the offset); tables the
// profile never reads (allocation and debug events, allocators) are not
// visited. Events reached more than once (a crafted DAG) are charged
// against the decoder's memory budget (kResourceLimit).
Result<EtdumpFile> read_etdump_runs(const Blob& file);

// The file as flatc's JSON decode of it with defaults filled in
// (`flatc --json --strict-json --defaults-json --size-prefixed`): tables in
// schema field order, enums by name, byte vectors as number arrays, absent
// tables, strings and vectors left out. Integers are exact JSON tokens
// (uint64 above 2^53 included); floats in shortest round-trip form.
std::string etdump_json(const EtdumpFile& file);

}  // namespace etpack
