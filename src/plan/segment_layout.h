// Where each segment goes: the layout rule shared by .pte and .ptd files.
// Segment i starts at aligned(end of segment i-1, lcm(segment_alignment,
// its own alignment)), relative to the segment base; no padding follows the
// last segment. Pure arithmetic, overflow-checked.
#pragma once

#include <cstdint>
#include <vector>

#include "core/blob.h"
#include "core/result.h"
#include "core/cord.h"

namespace etpack {

struct SegmentInput {
  Cord data;               // the segment's bytes (may be several pieces)
  uint64_t alignment = 1;  // the segment's own alignment (> 0)
};

struct SegmentPlan {
  std::vector<uint64_t> offsets;  // relative to the segment base
  std::vector<uint64_t> sizes;
  uint64_t total_size = 0;  // end of the last segment
};

Result<SegmentPlan> plan_segments(const std::vector<SegmentInput>& segments, uint64_t segment_alignment);

// The segment data (zero padding between segments) as one Cord.
Cord assemble_segments(const std::vector<SegmentInput>& segments, const SegmentPlan& plan);

}  // namespace etpack
