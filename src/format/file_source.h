// A file to read: its first bytes in memory and the whole file, which may be
// external (bytes that stay with the host: a file on disk, a browser Blob).
// Readers parse the head; sizes and ranges refer to the whole file.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>

#include "core/blob.h"

namespace etpack {

// The most any header check reads from the start of a file (eh00 and FH01
// fit in it); a head always holds at least min(file size, this) bytes.
constexpr uint64_t kMinimumHeadBytes = 64;

// How many bytes to read from the start of a file before parsing it: the
// head size a reader computed from its first bytes (pte_head_size,
// ptd_head_size), at least kMinimumHeadBytes; when that failed (a malformed
// file), a fixed prefix, enough for validate to say what is wrong.
inline uint64_t head_bytes_to_read(std::optional<uint64_t> head_size, uint64_t file_size) {
  constexpr uint64_t kMalformedPrefix = 64 * 1024;
  const uint64_t want = head_size ? std::max(*head_size, kMinimumHeadBytes) : kMalformedPrefix;
  return std::min(want, file_size);
}

struct FileSource {
  Blob head;  // the first bytes, in memory: at least pte_head_size / ptd_head_size
  Blob file;  // the whole file, in memory or external
  static FileSource in_memory(const Blob& bytes) { return {bytes, bytes}; }
  uint64_t size() const { return file.size(); }
};

}  // namespace etpack
