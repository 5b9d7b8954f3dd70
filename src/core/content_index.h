// Deduplication by content: maps byte strings to the index of the first
// equal one seen. Candidates are found by Blob::fingerprint and confirmed by
// Blob::same_bytes, so a fingerprint collision never merges different data.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/blob.h"

namespace etpack {

class ContentIndex {
 public:
  // Index of the first added blob with the same bytes, or -1.
  int64_t find(const Blob& data) const;
  // Adds `data` under `index` unless equal bytes are already present;
  // returns the index that owns these bytes.
  int64_t find_or_add(const Blob& data, int64_t index);

 private:
  std::unordered_multimap<uint64_t, std::pair<Blob, int64_t>> by_fingerprint_;
};

}  // namespace etpack
