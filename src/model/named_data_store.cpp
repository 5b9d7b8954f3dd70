#include "model/named_data_store.h"

#include <algorithm>
#include <limits>

namespace etpack {
namespace {

// std::string compares bytes as unsigned char, which for UTF-8 keys is the
// code point order Python's sorted() uses; shard names depend on it.
bool key_less(const std::string& a, const std::string& b) { return a < b; }

}  // namespace

Result<uint32_t> NamedDataStore::intern_buffer(const Blob& data) {
  if (int64_t found = buffer_index_.find(data); found >= 0) return static_cast<uint32_t>(found);
  if (buffers_.size() >= std::numeric_limits<uint32_t>::max()) {
    return make_error(ErrorCode::kLimitExceeded,
                      "named data store holds " + std::to_string(buffers_.size()) +
                          " buffers, the most a buffer index can address");
  }
  const auto index = static_cast<uint32_t>(buffers_.size());
  buffers_.push_back(data);  // a reference; the bytes stay where they are
  buffer_index_.find_or_add(data, index);
  return index;
}

EntryMap& NamedDataStore::tag_entries(const std::string& tag) {
  auto it = tag_index_.find(tag);
  if (it != tag_index_.end()) return external_data_[it->second].second;
  tag_index_.emplace(tag, external_data_.size());
  external_data_.emplace_back(tag, EntryMap{});
  return external_data_.back().second;
}

Status NamedDataStore::add_named_data(const std::string& key, Blob data, uint64_t alignment,
                                      std::optional<std::string> external_tag,
                                      std::optional<TensorLayout> tensor_layout) {
  if (alignment == 0) {
    return make_error(ErrorCode::kInvalidAlignment,
                      "Alignment must be greater than 0, received " + std::to_string(alignment) +
                          ".");
  }
  // Upstream creates the tag (dict.setdefault) before looking at the key, so
  // a rejected or no-op add still fixes the tag's position in the output
  // order; the empty tag itself is dropped from the output.
  EntryMap& target = external_tag ? tag_entries(*external_tag) : pte_data_;

  auto existing = key_to_buffer_.find(key);
  if (existing != key_to_buffer_.end()) {
    const Blob& stored = buffers_[existing->second];
    if (!stored.same_bytes(data)) {
      return make_error(ErrorCode::kDuplicateKey,
                        "Duplicate key " + key + " with different data. Existing data size: " +
                            std::to_string(stored.size()) +
                            " bytes. New data size: " + std::to_string(data.size()) + " bytes.");
    }
    // Same key, same bytes: the first alignment, location and layout win.
    return {};
  }

  const size_t buffers_before = buffers_.size();
  ETP_ASSIGN(const uint32_t index, intern_buffer(data));
  target.emplace_back(key, DataEntry{index, alignment, std::move(tensor_layout)});
  key_to_buffer_.emplace(key, index);
  if (journaling_) {
    std::optional<size_t> slot;
    if (external_tag) slot = tag_index_.at(*external_tag);
    journal_.push_back({slot, key, buffers_.size() > buffers_before});
  }
  return {};
}

void NamedDataStore::undo_adds() {
  // Newest first, so each record's entry and buffer are the last ones.
  for (auto r = journal_.rbegin(); r != journal_.rend(); ++r) {
    EntryMap& target = r->tag_slot ? external_data_[*r->tag_slot].second : pte_data_;
    target.pop_back();
    key_to_buffer_.erase(r->key);
    if (r->new_buffer) {
      buffer_index_.forget(buffers_.back(), static_cast<int64_t>(buffers_.size() - 1));
      buffers_.pop_back();
    }
  }
  journal_.clear();
}

Status NamedDataStore::merge_named_data_store(const NamedDataStoreOutput& other) {
  // Upstream would fail with an IndexError part-way; checking first keeps a
  // malformed `other` from leaving half of itself behind.
  auto check = [&](const std::string& key, const DataEntry& entry) -> Status {
    if (entry.buffer_index >= other.buffers.size()) {
      return make_error(ErrorCode::kInvalidArgument,
                        "merge_named_data_store: key " + key + " has buffer_index " +
                            std::to_string(entry.buffer_index) + " but other has " +
                            std::to_string(other.buffers.size()) + " buffers");
    }
    return {};
  };
  for (const auto& [key, entry] : other.pte_data) ETP_TRY(check(key, entry));
  for (const auto& tag_and_entries : other.external_data) {
    for (const auto& [key, entry] : tag_and_entries.second) ETP_TRY(check(key, entry));
  }

  for (const auto& [key, entry] : other.pte_data) {
    ETP_TRY(add_named_data(key, other.buffers[entry.buffer_index], entry.alignment, std::nullopt,
                           entry.tensor_layout));
  }
  for (const auto& [tag, entries] : other.external_data) {
    for (const auto& [key, entry] : entries) {
      ETP_TRY(add_named_data(key, other.buffers[entry.buffer_index], entry.alignment, tag,
                             entry.tensor_layout));
    }
  }
  return {};
}

Status NamedDataStore::externalize_pte_data(uint64_t max_data_bytes,
                                            const std::string& tag_prefix) {
  if (max_data_bytes == 0) {
    return make_error(ErrorCode::kInvalidArgument,
                      "external data shard cap must be a positive integer, received 0");
  }
  if (tag_prefix.empty()) {
    return make_error(ErrorCode::kInvalidArgument, "external data tag prefix must be nonempty");
  }
  if (pte_data_.empty()) return {};

  // Keys sharing a buffer must land in one shard, or the buffer would be
  // written twice; so the unit of packing is the buffer with all its keys.
  std::vector<std::vector<size_t>> groups;  // indices into pte_data_
  std::unordered_map<uint32_t, size_t> group_of_buffer;
  for (size_t i = 0; i < pte_data_.size(); ++i) {
    auto [it, inserted] = group_of_buffer.emplace(pte_data_[i].second.buffer_index, groups.size());
    if (inserted) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  auto by_key = [&](size_t a, size_t b) { return key_less(pte_data_[a].first, pte_data_[b].first); };
  for (auto& group : groups) std::sort(group.begin(), group.end(), by_key);
  // Groups in order of their sorted key lists; keys are unique, so comparing
  // the smallest keys decides it. This makes the shards independent of the
  // order in which keys were added.
  std::sort(groups.begin(), groups.end(),
            [&](const std::vector<size_t>& a, const std::vector<size_t>& b) {
              return by_key(a.front(), b.front());
            });

  // Everything is checked before anything moves, so a failure leaves the
  // store as it was.
  for (const auto& group : groups) {
    const uint32_t buffer = pte_data_[group.front()].second.buffer_index;
    const uint64_t size = buffers_[buffer].size();
    if (size > max_data_bytes) {
      std::string keys = "key " + pte_data_[group.front()].first;
      if (group.size() > 1) keys += " and " + std::to_string(group.size() - 1) + " other keys";
      return make_error(ErrorCode::kShardCapExceeded,
                        "buffer " + std::to_string(buffer) + " has " + std::to_string(size) +
                            " bytes and exceeds external data shard cap " +
                            std::to_string(max_data_bytes) + " (" + keys + ")");
    }
  }

  // Greedy packing in group order; a buffer counts once however many keys
  // alias it, and padding is not counted. `size > cap - bytes` is the
  // overflow-free form of `bytes + size > cap` (bytes <= cap holds).
  std::vector<std::vector<size_t>> shards;
  uint64_t shard_bytes = 0;
  for (const auto& group : groups) {
    const uint64_t size = buffers_[pte_data_[group.front()].second.buffer_index].size();
    if (shards.empty() || size > max_data_bytes - shard_bytes) {
      shards.emplace_back();
      shard_bytes = 0;
    }
    shards.back().insert(shards.back().end(), group.begin(), group.end());
    shard_bytes += size;
  }

  std::vector<std::pair<std::string, EntryMap>> new_tags;
  new_tags.reserve(shards.size());
  for (auto& shard : shards) {
    std::sort(shard.begin(), shard.end(), by_key);
    // The tag names the shard by its keys (sorted, NUL-separated), so the
    // same weights get the same file name from one export to the next.
    Sha256 hasher;
    EntryMap entries;
    entries.reserve(shard.size());
    for (size_t n = 0; n < shard.size(); ++n) {
      const std::string& key = pte_data_[shard[n]].first;
      if (n > 0) {
        const uint8_t separator = 0;
        hasher.update(&separator, 1);
      }
      hasher.update(reinterpret_cast<const uint8_t*>(key.data()), key.size());
      entries.push_back(pte_data_[shard[n]]);
    }
    const Sha256::Digest digest = hasher.finish();
    std::string tag = tag_prefix + "_" + to_hex(digest.data(), digest.size());
    bool taken = tag_index_.count(tag) != 0;
    for (const auto& added : new_tags) taken = taken || added.first == tag;
    if (taken) {
      return make_error(ErrorCode::kInvalidArgument,
                        "external data tag collision: " + tag + " already exists");
    }
    new_tags.emplace_back(std::move(tag), std::move(entries));
  }

  for (auto& [tag, entries] : new_tags) {
    tag_index_.emplace(tag, external_data_.size());
    external_data_.emplace_back(std::move(tag), std::move(entries));
  }
  pte_data_.clear();
  return {};
}

NamedDataStoreOutput NamedDataStore::get_named_data_store_output() const {
  NamedDataStoreOutput out;
  out.buffers = buffers_;  // Blob references only
  out.pte_data = pte_data_;
  for (const auto& tag_and_entries : external_data_) {
    if (!tag_and_entries.second.empty()) out.external_data.push_back(tag_and_entries);
  }
  return out;
}

}  // namespace etpack
