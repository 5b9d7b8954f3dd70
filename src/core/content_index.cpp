#include "core/content_index.h"

#include <cstring>

namespace etpack {

uint64_t content_hash(const uint8_t* data, size_t size) {
  // FNV-1a over 8-byte words (then the tail): fast enough to hash weights once.
  uint64_t h = 1469598103934665603ull ^ size;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t w;
    std::memcpy(&w, data + i, 8);
    h = (h ^ w) * 1099511628211ull;
    h ^= h >> 29;
  }
  for (; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
  return h;
}

int64_t ContentIndex::find(const Blob& data) const {
  auto range = by_hash_.equal_range(content_hash(data.data(), data.size()));
  for (auto it = range.first; it != range.second; ++it)
    if (it->second.first.same_bytes(data)) return it->second.second;
  return -1;
}

int64_t ContentIndex::find_or_add(const Blob& data, int64_t index) {
  uint64_t h = content_hash(data.data(), data.size());
  auto range = by_hash_.equal_range(h);
  for (auto it = range.first; it != range.second; ++it)
    if (it->second.first.same_bytes(data)) return it->second.second;
  by_hash_.emplace(h, std::make_pair(data, index));
  return index;
}

}  // namespace etpack
