// profile's statistics per operator and per delegate (src/ops/profile.h):
// count, total, min, p10, p50, p90, mean and max of the calls' durations,
// in exact integer arithmetic. Durations are uint64 (an event ending before
// it starts has none and is never counted: profile reports it); the total is
// kept in 128 bits, so it is exact for any number of calls of any length
// (JSON integers past 2^53 come to JS as BigInts), never saturated.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace etpack {

struct DurationStats {
  std::vector<uint64_t> durations;
  std::set<std::string> methods;
};

// Linear-interpolation percentile (numpy.percentile's default, which the
// Inspector's PerfData uses) of sorted values; `percent` in [0, 100].
double percentile_linear(const std::vector<uint64_t>& sorted, double percent);

// A 128-bit unsigned integer as decimal digits.
std::string u128_decimal(uint64_t hi, uint64_t lo);

// The rows as a JSON array, largest total first (ties by name). Sorts each
// row's durations in place: no copy (memory stays one uint64 per call).
void write_duration_stats(std::map<std::string, DurationStats>& by_name, std::string& out);

}  // namespace etpack
