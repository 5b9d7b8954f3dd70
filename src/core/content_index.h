// Deduplication by content: maps byte strings to the index of the first
// equal one seen. Candidates are found by a 64-bit hash and confirmed by
// comparing bytes, so a hash collision can never merge different data.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/blob.h"

namespace etpack {

uint64_t content_hash(const uint8_t* data, size_t size);

class ContentIndex {
 public:
  // Index of the first added blob with the same bytes, or -1.
  int64_t find(const Blob& data) const;
  // Adds `data` under `index` unless equal bytes are already present;
  // returns the index that owns these bytes.
  int64_t find_or_add(const Blob& data, int64_t index);

 private:
  std::unordered_multimap<uint64_t, std::pair<Blob, int64_t>> by_hash_;
};

}  // namespace etpack
