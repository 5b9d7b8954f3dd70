// Overflow-checked size arithmetic and the alignment helpers of the format
// (upstream exir/_serialize/padding.py: padding_required, aligned_size).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

namespace etpack {

inline bool is_power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

inline std::optional<uint64_t> checked_add(uint64_t a, uint64_t b) {
  if (a > std::numeric_limits<uint64_t>::max() - b) return std::nullopt;
  return a + b;
}

inline std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b) {
  if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a) return std::nullopt;
  return a * b;
}

// Bytes needed after `offset` to reach a multiple of `alignment` (> 0).
inline uint64_t padding_to(uint64_t offset, uint64_t alignment) {
  uint64_t rem = offset % alignment;
  return rem == 0 ? 0 : alignment - rem;
}

// `offset` rounded up to a multiple of `alignment` (> 0); nullopt on overflow.
inline std::optional<uint64_t> aligned_to(uint64_t offset, uint64_t alignment) {
  return checked_add(offset, padding_to(offset, alignment));
}

inline uint64_t gcd_u64(uint64_t a, uint64_t b) {
  while (b != 0) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// Least common multiple of two positive values; nullopt on overflow.
inline std::optional<uint64_t> lcm_u64(uint64_t a, uint64_t b) {
  return checked_mul(a / gcd_u64(a, b), b);
}

// True when [offset, offset + length) lies inside [0, size), without overflow.
inline bool range_within(uint64_t offset, uint64_t length, uint64_t size) {
  return offset <= size && length <= size - offset;
}

}  // namespace etpack
