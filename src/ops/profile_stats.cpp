#include "ops/profile_stats.h"

#include <algorithm>
#include <cmath>

#include "core/json.h"
#include "core/utf8_text.h"

namespace etpack {
namespace {

void text(const std::string& s, std::string& out) {
  std::string valid;
  append_decoded_utf8(s, valid);
  write_json_string(valid, out);
}

void key(const char* k, std::string& out) {
  out += ",\"";
  out += k;
  out += "\":";
}

}  // namespace

double percentile_linear(const std::vector<uint64_t>& sorted, double percent) {
  if (sorted.empty()) return std::nan("");
  // numpy: virtual index (n - 1) * q, then _lerp(a, b, gamma), which takes
  // b - (b - a) * (1 - gamma) from gamma 0.5 on (bit-exact with numpy).
  const double q = percent / 100.0;
  const double virtual_index = static_cast<double>(sorted.size() - 1) * q;
  const double below = std::floor(virtual_index);
  const auto lo = static_cast<size_t>(below);
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double gamma = virtual_index - below;
  const double a = static_cast<double>(sorted[lo]);
  const double b = static_cast<double>(sorted[hi]);
  const double diff = b - a;
  return gamma >= 0.5 ? b - diff * (1 - gamma) : a + diff * gamma;
}

std::string u128_decimal(uint64_t hi, uint64_t lo) {
  if (hi == 0) return std::to_string(lo);
  // Four 32-bit limbs, most significant first, divided by 10^9 until zero.
  uint32_t limbs[4] = {static_cast<uint32_t>(hi >> 32), static_cast<uint32_t>(hi), static_cast<uint32_t>(lo >> 32),
                       static_cast<uint32_t>(lo)};
  std::vector<uint32_t> groups;  // base 10^9, least significant first
  for (;;) {
    uint64_t rem = 0;
    bool zero = true;
    for (uint32_t& limb : limbs) {
      const uint64_t cur = (rem << 32) | limb;
      limb = static_cast<uint32_t>(cur / 1000000000u);
      rem = cur % 1000000000u;
      zero = zero && limb == 0;
    }
    groups.push_back(static_cast<uint32_t>(rem));
    if (zero) break;
  }
  std::string out = std::to_string(groups.back());
  for (size_t g = groups.size() - 1; g-- > 0;) {
    const std::string part = std::to_string(groups[g]);
    out.append(9 - part.size(), '0');
    out += part;
  }
  return out;
}

void write_duration_stats(std::map<std::string, DurationStats>& by_name, std::string& out) {
  struct Row { const std::string* name; DurationStats* stats; uint64_t hi, lo; };
  std::vector<Row> rows;
  for (auto& [name, s] : by_name) {
    uint64_t hi = 0, lo = 0;
    for (uint64_t d : s.durations) {
      lo += d;
      if (lo < d) ++hi;  // carry: at most one per call, so hi < 2^64 for any count
    }
    rows.push_back({&name, &s, hi, lo});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.hi != b.hi ? a.hi > b.hi : a.lo > b.lo; });
  out.push_back('[');
  for (size_t r = 0; r < rows.size(); ++r) {
    std::vector<uint64_t>& sorted = rows[r].stats->durations;
    std::sort(sorted.begin(), sorted.end());
    out += r ? ",{\"name\":" : "{\"name\":";
    text(*rows[r].name, out);
    key("methods", out);
    out.push_back('[');
    bool first = true;
    for (const std::string& m : rows[r].stats->methods) {
      if (!first) out.push_back(',');
      first = false;
      text(m, out);
    }
    out.push_back(']');
    key("count", out), out += std::to_string(sorted.size());
    key("total", out), out += u128_decimal(rows[r].hi, rows[r].lo);
    key("min", out), out += std::to_string(sorted.front());
    key("p10", out), out += python_float_repr(percentile_linear(sorted, 10));
    key("p50", out), out += python_float_repr(percentile_linear(sorted, 50));
    key("p90", out), out += python_float_repr(percentile_linear(sorted, 90));
    // The mean of the exact total, rounded once more than a double sum
    // would be; it lies within [min, max] (both ends exact in the total).
    const double total = std::ldexp(static_cast<double>(rows[r].hi), 64) + static_cast<double>(rows[r].lo);
    double mean = total / static_cast<double>(sorted.size());
    mean = std::min(std::max(mean, static_cast<double>(sorted.front())), static_cast<double>(sorted.back()));
    key("mean", out), out += python_float_repr(mean);
    key("max", out), out += std::to_string(sorted.back());
    out.push_back('}');
  }
  out.push_back(']');
}

}  // namespace etpack
