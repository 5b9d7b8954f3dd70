// A bound on the work that walking a decoded file may cost. The decoder
// bounds the tree it builds, but scalar vectors are slices that many tables
// may share, so a walk that reads every element of every referenced vector
// could cost (file size)^2. Walkers charge each element they read; once the
// budget is spent they stop and say so.
#pragma once

#include <cstdint>

namespace etpack {

class WorkBudget {
 public:
  // Generous for real files, where every element read is a distinct byte.
  static uint64_t for_file_size(uint64_t size) { return size * 16 + (1u << 16); }

  explicit WorkBudget(uint64_t units) : units_(units), left_(units) {}
  uint64_t units() const { return units_; }
  // False (and the budget stays exhausted) when `units` is more than is left.
  bool spend(uint64_t units) {
    if (exhausted_ || units > left_) {
      exhausted_ = true;
      return false;
    }
    left_ -= units;
    return true;
  }
  bool exhausted() const { return exhausted_; }

 private:
  uint64_t units_;
  uint64_t left_;
  bool exhausted_ = false;
};

}  // namespace etpack
