// Reads a flatbuffer into a TableValue tree, schema-driven. Built for hostile
// input: every offset is bounds-checked before use, nesting depth is bounded,
// and the memory the tree takes is charged as it is built against a budget
// of `memory_factor` times the input size plus `memory_allowance` bytes. A
// buffer whose vectors point many times at one table (a DAG: a few MB that
// would expand to GBs) is refused once it has cost its budget, with
// kResourceLimit naming the offset where it ran out; a table reached more
// than once is charged in full each time but decoded once and shared
// (copy-on-write), so refusing takes time in proportion to the file. A
// vector is charged its slots and the least its elements will cost before
// anything is allocated for it, so a vector that cannot fit is refused
// without allocating in proportion to the count it claims. Other failures are
// kMalformedFile (bad offsets) / kLimitExceeded (depth) naming the offset.
// Scalar and byte vectors come back as slices of `buffer` (no copy): the
// tree keeps `buffer`'s storage alive through the Blob.
#pragma once

#include <cstddef>

#include "core/blob.h"
#include "core/result.h"
#include "model/fb_value.h"

namespace etpack {

struct DecodeLimits {
  size_t max_depth = 64;
  // Real programs decode to 5-15 bytes of model per byte of flatbuffer
  // (a Value slot per schema field, present or not); 32 leaves room for
  // the sparsest valid files while holding a hostile 4 MB file to ~140 MB.
  uint64_t memory_factor = 32;
  uint64_t memory_allowance = uint64_t{8} << 20;
};

// `buffer` starts at the flatbuffer's root offset. `base_offset` is added to
// offsets in error messages (e.g. when the buffer is a slice of a file).
Result<TableValue> decode_flatbuffer(const Blob& buffer, const TableDef& root, uint64_t base_offset = 0,
                                     const DecodeLimits& limits = DecodeLimits());

}  // namespace etpack
