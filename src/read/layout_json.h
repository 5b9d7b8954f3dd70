// JSON pieces that inspect_pte and inspect_ptd share: the segment list, the
// segment map and bytes by category (shapes documented in inspect.h).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/json.h"
#include "model/fb_value.h"
#include "read/file_layout.h"

namespace etpack {

// [{index, offset, size, kind, owners}] for a [DataSegment] value at `base`;
// offset is absolute (null when base + offset overflows).
Json segments_json(const Value& segments, uint64_t base, const std::vector<SegmentUse>& uses);

// The largest power of two dividing `base` and every segment's absolute
// start (the alignment the segments have, whatever was asked); nullopt
// without segments or when base is 0.
std::optional<uint64_t> actual_segment_alignment(const Value& segments, uint64_t base);

// [{start, end, size, kind, segment, owners, clipped}]
Json segment_map_json(const std::vector<Region>& layout);

// {header, flatbufferMetadata, constants, mutableData, delegateBlobs,
//  namedData, padding, unused}: sums over the layout, adding up to the file size.
Json bytes_by_category_json(const std::vector<Region>& layout);

}  // namespace etpack
