// Reads a flatbuffer into a TableValue tree, schema-driven. Built for hostile
// input: every offset is bounds-checked before use, nesting depth and the
// total work (tables, vector elements, string bytes) are bounded relative to
// the input size so shared sub-objects cannot blow up memory, and failures
// are kMalformedFile / kLimitExceeded errors naming the byte offset.
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
};

// `buffer` starts at the flatbuffer's root offset. `base_offset` is added to
// offsets in error messages (e.g. when the buffer is a slice of a file).
Result<TableValue> decode_flatbuffer(const Blob& buffer, const TableDef& root, uint64_t base_offset = 0,
                                     const DecodeLimits& limits = DecodeLimits());

}  // namespace etpack
