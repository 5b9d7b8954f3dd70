// The runs of an ETDump read straight from its flatbuffer (no decoded tree):
// read/etdump_reader.cpp's read_etdump and read_etdump_runs both take their
// blocks from here, so the two give the same events.
#pragma once

#include <cstdint>
#include <vector>

#include "core/blob.h"
#include "core/result.h"
#include "read/etdump_reader.h"

namespace etpack {

// The root table's `version` (0 when absent), and where it lies (for
// messages). `flatbuffer` is the file after its size prefix; `base` is
// added to offsets in messages.
struct EtdumpVersion {
  uint64_t value = 0;
  uint64_t offset = 0;
};
Result<EtdumpVersion> etdump_version(const Blob& flatbuffer, uint64_t base);

// Each RunData's name, bundled_input_index, event count and profile events
// (strings as views into `flatbuffer`'s bytes, which the caller keeps).
// Work and memory are bounded by `memory_budget` bytes: each block and each
// event reached is charged what it costs (a crafted file whose offsets
// reach one events vector from many runs is refused with kResourceLimit
// once it has cost that much). Offsets are checked as the decoder checks
// them (kMalformedFile naming the offset).
Result<std::vector<EtdumpBlock>> etdump_runs(const Blob& flatbuffer, uint64_t base, uint64_t memory_budget);

}  // namespace etpack
