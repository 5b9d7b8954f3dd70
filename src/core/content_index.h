// Deduplication by content: maps byte strings to the index of the first
// equal one seen. Candidates are found by Blob::fingerprint (size and edge
// bytes: cheap) and confirmed by Blob::same_bytes, so a fingerprint collision
// never merges different data. Buffers that share a fingerprint but differ
// (same size and edges, different middles: a hostile file can hold 100k of
// them) are told apart by their SHA-256 instead of by comparing with each
// other, so n additions cost O(n) lookups, never O(n^2) comparisons.
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
  // Removes the entry that find_or_add(data, index) added (undoing an add).
  void forget(const Blob& data, int64_t index);

 private:
  struct Entry {
    Blob blob;
    int64_t index;
  };
  // One fingerprint's entries: while there is one, it is compared directly;
  // once a second, different blob arrives, all are keyed by digest.
  struct Bucket {
    std::vector<Entry> entries;                            // direct (size <= 1) or undigestible blobs
    std::unordered_multimap<uint64_t, Entry> by_digest;  // key: the digest's first 8 bytes
  };
  static std::optional<uint64_t> digest_key(const Blob& data);
  std::unordered_map<uint64_t, Bucket> by_fingerprint_;
};

}  // namespace etpack
