// NamedDataStore: the blobs that delegates and external constants share by
// name, mirroring upstream exir/_serialize/_named_data_store.py.
//
// Ownership: the store never copies payload bytes. Every buffer is a Blob
// (a view of caller memory or a shared reference), so adding a 1 GiB weight
// costs a reference, and the output hands out the same references. Views
// must outlive the store and every output taken from it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/blob.h"
#include "core/content_index.h"
#include "core/result.h"
#include "core/sha256.h"
#include "model/tensor_layout.h"

namespace etpack {

struct DataEntry {
  uint32_t buffer_index = 0;
  uint64_t alignment = 1;
  std::optional<TensorLayout> tensor_layout;

  bool operator==(const DataEntry& o) const {
    return buffer_index == o.buffer_index && alignment == o.alignment &&
           tensor_layout == o.tensor_layout;
  }
  bool operator!=(const DataEntry& o) const { return !(*this == o); }
};

// key -> entry in insertion order: the order is what upstream's dicts keep,
// and it decides the order of named data in the written files.
using EntryMap = std::vector<std::pair<std::string, DataEntry>>;

struct NamedDataStoreOutput {
  std::vector<Blob> buffers;  // unique contents; entries index into this
  EntryMap pte_data;
  // tag -> entries, in order of the tags' first use; empty tags dropped.
  std::vector<std::pair<std::string, EntryMap>> external_data;
};

class NamedDataStore {
 public:
  // Adds `data` under `key`, inside the PTE (no tag) or for the external
  // file `external_tag`. The store keeps the Blob, not a copy of its bytes.
  // Errors:
  //   kInvalidAlignment  alignment is 0 (state unchanged).
  //   kDuplicateKey      `key` exists with different bytes (state unchanged,
  //                      except that a new `external_tag` is remembered as an
  //                      empty tag, exactly as upstream's setdefault does).
  //   kLimitExceeded     more than 2^32 - 1 distinct buffers.
  // A key that exists with identical bytes is a no-op: its first alignment,
  // location and layout stay.
  Status add_named_data(const std::string& key, Blob data, uint64_t alignment = 1,
                        std::optional<std::string> external_tag = std::nullopt,
                        std::optional<TensorLayout> tensor_layout = std::nullopt);

  // Re-adds every entry of `other` through add_named_data: its PTE entries
  // first, then each tag in order. Errors: kInvalidArgument when an entry's
  // buffer_index is past other.buffers (checked before anything is added),
  // then any add_named_data error; like upstream, entries added before a
  // failing one stay.
  Status merge_named_data_store(const NamedDataStoreOutput& other);

  // Moves every PTE entry into new external tags of at most `max_data_bytes`
  // of buffer bytes each (a buffer shared by several keys counts once),
  // named `<tag_prefix>_<sha256 hex of the shard's sorted keys joined by
  // NUL>`. Packing is independent of insertion order: keys are grouped by
  // buffer, groups are ordered by their smallest key and packed greedily;
  // each shard lists its keys sorted. New tags follow existing ones; buffers
  // and entries (alignment, layout) are unchanged. Atomic: on error nothing
  // changes. Errors:
  //   kInvalidArgument   max_data_bytes is 0, tag_prefix is empty, or a new
  //                      tag already exists.
  //   kShardCapExceeded  a buffer referenced from the PTE map is larger than
  //                      max_data_bytes.
  // With an empty PTE map (after the argument checks) nothing happens.
  Status externalize_pte_data(uint64_t max_data_bytes, const std::string& tag_prefix);

  // A snapshot (Blob references, no byte copies) with empty tags dropped.
  NamedDataStoreOutput get_named_data_store_output() const;

  // Adds made since begin_adds() can be taken back together by undo_adds():
  // a call whose byte source failed part-way (a digest the host could not
  // give) must leave the store as it was, not holding a reference to a
  // source the caller has already released. Only adds are journaled; the
  // tags they created stay (as after a refused add, upstream keeps them).
  void begin_adds() { journal_.clear(); journaling_ = true; }
  void end_adds() { journal_.clear(); journaling_ = false; }
  void undo_adds();

  // True when no key has been added.
  bool empty() const { return key_to_buffer_.empty(); }
  bool contains(const std::string& key) const { return key_to_buffer_.count(key) != 0; }
  const std::vector<Blob>& buffers() const { return buffers_; }
  const EntryMap& pte_data() const { return pte_data_; }

 private:
  // Returns the index of a buffer with exactly these bytes, adding it when
  // none exists.
  Result<uint32_t> intern_buffer(const Blob& data);
  EntryMap& tag_entries(const std::string& tag);

  std::vector<Blob> buffers_;
  EntryMap pte_data_;
  std::vector<std::pair<std::string, EntryMap>> external_data_;
  std::unordered_map<std::string, size_t> tag_index_;       // tag -> external_data_ slot
  std::unordered_map<std::string, uint32_t> key_to_buffer_;  // every key, PTE or external
  // Bytes -> buffer index (core/content_index.h: fingerprint, then digest
  // when fingerprints collide; Blob::same_bytes decides equality).
  ContentIndex buffer_index_;

  struct AddRecord {
    std::optional<size_t> tag_slot;  // external_data_ slot, or none for the PTE map
    std::string key;
    bool new_buffer;  // the add interned a buffer of its own (the last one)
  };
  std::vector<AddRecord> journal_;
  bool journaling_ = false;
};

}  // namespace etpack
