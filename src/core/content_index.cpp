#include "core/content_index.h"

#include <cstring>

namespace etpack {

std::optional<uint64_t> ContentIndex::digest_key(const Blob& data) {
  std::optional<Digest> d = data.digest();  // computed once per Blob, then cached
  if (!d) return std::nullopt;
  uint64_t key;
  std::memcpy(&key, d->data(), sizeof key);
  return key;
}

int64_t ContentIndex::find(const Blob& data) const {
  auto it = by_fingerprint_.find(data.fingerprint());
  if (it == by_fingerprint_.end()) return -1;
  const Bucket& bucket = it->second;
  if (!bucket.by_digest.empty()) {
    if (std::optional<uint64_t> key = digest_key(data)) {
      auto range = bucket.by_digest.equal_range(*key);
      for (auto e = range.first; e != range.second; ++e)
        if (e->second.blob.same_bytes(data)) return e->second.index;
    }
  }
  // Entries without a digest (external bytes the host cannot hash) are few:
  // they stay in the direct list.
  for (const Entry& e : bucket.entries)
    if (e.blob.same_bytes(data)) return e.index;
  return -1;
}

int64_t ContentIndex::find_or_add(const Blob& data, int64_t index) {
  int64_t found = find(data);
  if (found >= 0) return found;
  Bucket& bucket = by_fingerprint_[data.fingerprint()];
  if (bucket.entries.empty() && bucket.by_digest.empty()) {
    bucket.entries.push_back({data, index});
    return index;
  }
  // A fingerprint collision between different bytes: key this bucket by
  // digest from now on (moving the entries that have one).
  std::vector<Entry> keep;
  for (Entry& e : bucket.entries) {
    if (std::optional<uint64_t> key = digest_key(e.blob)) bucket.by_digest.emplace(*key, std::move(e));
    else keep.push_back(std::move(e));
  }
  bucket.entries = std::move(keep);
  if (std::optional<uint64_t> key = digest_key(data)) bucket.by_digest.emplace(*key, Entry{data, index});
  else bucket.entries.push_back({data, index});
  return index;
}

void ContentIndex::forget(const Blob& data, int64_t index) {
  auto it = by_fingerprint_.find(data.fingerprint());
  if (it == by_fingerprint_.end()) return;
  Bucket& bucket = it->second;
  for (auto e = bucket.entries.begin(); e != bucket.entries.end(); ++e) {
    if (e->index == index) {
      bucket.entries.erase(e);
      break;
    }
  }
  // The entry may have moved to the digest map when the bucket was keyed.
  for (auto e = bucket.by_digest.begin(); e != bucket.by_digest.end(); ++e) {
    if (e->second.index == index) {
      bucket.by_digest.erase(e);
      break;
    }
  }
  if (bucket.entries.empty() && bucket.by_digest.empty()) by_fingerprint_.erase(it);
}

}  // namespace etpack
