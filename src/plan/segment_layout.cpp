#include "plan/segment_layout.h"

#include <string>

#include "core/checked_math.h"

namespace etpack {

Result<SegmentPlan> plan_segments(const std::vector<SegmentInput>& segments, uint64_t segment_alignment) {
  if (segment_alignment == 0)
    return make_error(ErrorCode::kInvalidAlignment, "segment_alignment must be positive, got 0");
  SegmentPlan plan;
  uint64_t end = 0;
  for (size_t i = 0; i < segments.size(); ++i) {
    if (segments[i].alignment == 0)
      return make_error(ErrorCode::kInvalidAlignment, "segment " + std::to_string(i) + " has alignment 0");
    auto alignment = lcm_u64(segment_alignment, segments[i].alignment);
    auto offset = alignment ? aligned_to(end, *alignment) : std::nullopt;
    auto next_end = offset ? checked_add(*offset, segments[i].data.size()) : std::nullopt;
    if (!next_end)
      return make_error(ErrorCode::kLimitExceeded, "segment " + std::to_string(i) + " offset overflows 64 bits");
    plan.offsets.push_back(*offset);
    plan.sizes.push_back(segments[i].data.size());
    end = *next_end;
  }
  plan.total_size = end;
  return plan;
}

Cord assemble_segments(const std::vector<SegmentInput>& segments, const SegmentPlan& plan) {
  Cord out;
  for (size_t i = 0; i < segments.size(); ++i) {
    out.append_zeros(plan.offsets[i] - out.size());
    out.append(segments[i].data);
  }
  return out;
}

}  // namespace etpack
