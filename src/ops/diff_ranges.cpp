#include "ops/diff_ranges.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "core/sha256.h"

namespace etpack {

Result<RangeHashPlan> plan_range_hashes(const std::vector<ByteRange>& ranges, uint64_t file_size) {
  RangeHashPlan plan;
  for (const ByteRange& r : ranges)
    if (r.offset > file_size || r.length > file_size - r.offset)
      return make_error(ErrorCode::kInvalidArgument, "range [" + std::to_string(r.offset) + ", +" + std::to_string(r.length) +
                                                         ") runs past the end of the file (" + std::to_string(file_size) + " bytes)");
  std::vector<size_t> order(ranges.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return ranges[a].offset != ranges[b].offset ? ranges[a].offset < ranges[b].offset : ranges[a].length < ranges[b].length;
  });
  plan.range_of.resize(ranges.size());
  for (size_t i : order) {
    const ByteRange& r = ranges[i];
    if (plan.distinct.empty() || !(plan.distinct.back() == r)) {
      if (plan.streams.empty() || plan.streams.back().start != r.offset) plan.streams.push_back({r.offset, {}});
      plan.streams.back().ends.push_back(plan.distinct.size());
      plan.distinct.push_back(r);
    }
    plan.range_of[i] = plan.distinct.size() - 1;
  }
  return plan;
}

std::vector<std::string> hash_ranges(const RangeHashPlan& plan, const uint8_t* file, uint64_t file_size) {
  std::vector<std::string> out(plan.distinct.size());
  for (const RangeHashPlan::Stream& s : plan.streams) {
    Sha256 running;
    uint64_t at = s.start;
    for (size_t d : s.ends) {
      const uint64_t end = plan.distinct[d].offset + plan.distinct[d].length;
      if (end > file_size || end < at) continue;  // plan_range_hashes checked the file; kept safe for any plan
      running.update(file + at, static_cast<size_t>(end - at));
      at = end;
      Sha256 snapshot = running;  // the state copy: the stream goes on past this end
      auto digest = snapshot.finish();
      out[d] = to_hex(digest.data(), digest.size());
    }
  }
  return out;
}

}  // namespace etpack
