// diff's tensor comparison: which byte ranges of one input file to hash so
// that each distinct range is hashed once and the file is read once,
// front to back. Ranges that start at the same offset share one running
// hash, whose state is copied at each range's end (N tensors viewing
// prefixes of one constant cost one pass over it, not N). The host runs the
// plan with its own SHA-256 (node:crypto in Node, the core's in browsers;
// npm/src/program-tensors.mjs) while it reads the file once.
#pragma once

#include <cstdint>
#include <vector>

#include "core/result.h"

namespace etpack {

struct ByteRange {
  uint64_t offset = 0;
  uint64_t length = 0;
  bool operator==(const ByteRange& o) const { return offset == o.offset && length == o.length; }
};

struct RangeHashPlan {
  std::vector<ByteRange> distinct;  // sorted by (offset, length), no duplicates
  std::vector<size_t> range_of;     // input range i -> index into distinct
  struct Stream {
    uint64_t start = 0;
    std::vector<size_t> ends;  // indices into distinct, ascending length; a snapshot at each
  };
  std::vector<Stream> streams;  // ascending start
};

// The plan for `ranges` of a file of `file_size` bytes. INVALID_ARGUMENT
// when a range runs past the file. O(n log n) in the number of ranges.
Result<RangeHashPlan> plan_range_hashes(const std::vector<ByteRange>& ranges, uint64_t file_size);

// Runs a plan over bytes in memory with the core's SHA-256 (tests, fuzzing
// and hosts without a copyable hash): hex digests, one per distinct range.
std::vector<std::string> hash_ranges(const RangeHashPlan& plan, const uint8_t* file, uint64_t file_size);

}  // namespace etpack
