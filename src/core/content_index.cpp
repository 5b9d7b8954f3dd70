#include "core/content_index.h"

namespace etpack {

int64_t ContentIndex::find(const Blob& data) const {
  auto range = by_fingerprint_.equal_range(data.fingerprint());
  for (auto it = range.first; it != range.second; ++it)
    if (it->second.first.same_bytes(data)) return it->second.second;
  return -1;
}

int64_t ContentIndex::find_or_add(const Blob& data, int64_t index) {
  int64_t found = find(data);
  if (found >= 0) return found;
  by_fingerprint_.emplace(data.fingerprint(), std::make_pair(data, index));
  return index;
}

}  // namespace etpack
