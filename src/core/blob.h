// Blob: a read-only byte range that is never copied by copying the Blob.
// Three kinds:
// - a view of caller-owned memory (the caller keeps it alive and unchanged);
// - owned storage, shared by every copy of the Blob;
// - external: bytes that stay outside this address space (a JS ArrayBuffer,
//   a browser Blob, a file) and are named by (source id, offset, size). The
//   core plans around them and the host copies them straight into the
//   output, so they never enter the wasm heap. Equality of external bytes is
//   decided by their SHA-256 digest, which the host supplies.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

namespace etpack {

using Digest = std::array<uint8_t, 32>;

class Blob;

// Where external bytes are and how to reach them (a JS host, a native file
// reader): handed to each external blob (Blob::External::host), as the
// runtime's Program::load(DataLoader*) is handed its loader; the core holds
// no global host. `source` ids are the host's own names for its buffers.
class ExternalHost {
 public:
  virtual ~ExternalHost() = default;
  // SHA-256 of the bytes, computed on demand: hashing then happens only
  // where dedup meets two candidates it cannot tell apart by fingerprint.
  // nullopt means "unknown".
  virtual std::optional<Digest> digest(uint32_t source, uint64_t offset, uint64_t size) = 0;
  // Copies the bytes into `dst`. Needed only where bytes must be inside the
  // flatbuffer itself (inline delegate data, compile specs). False on
  // failure (which the host records as an error).
  virtual bool read(uint32_t source, uint64_t offset, uint64_t size, uint8_t* dst) = 0;
  // The same for optional reads: the 32 edge bytes a fingerprint wants when
  // the host did not supply them, padding validate peeks at. A failure is
  // not an error (the fingerprint falls back to the size), so hosts whose
  // bytes cannot be read synchronously simply return false.
  virtual bool peek(uint32_t source, uint64_t offset, uint64_t size, uint8_t* dst) = 0;
};

class Blob {
 public:
  // Bytes of each end that enter the fingerprint; hosts supply them for
  // external blobs so fingerprints agree across kinds.
  static constexpr size_t kEdgeBytes = 32;

  struct External {
    uint32_t source = 0;       // host-side id of the buffer/file
    std::shared_ptr<ExternalHost> host;  // reaches the bytes; null: nothing can read them
    uint64_t offset = 0;       // where the bytes start in that source
    std::optional<Digest> digest;  // SHA-256 of the bytes, if known
    std::vector<uint8_t> head;     // first min(size, 32) bytes, if known
    std::vector<uint8_t> tail;     // last min(size, 32) bytes, if known
  };

  Blob() = default;

  static Blob view(const uint8_t* data, size_t size) { return Blob(data, size, nullptr); }
  static Blob own(std::vector<uint8_t> bytes) {
    auto holder = std::make_shared<std::vector<uint8_t>>(std::move(bytes));
    return Blob(holder->data(), holder->size(), holder);
  }
  // Bytes inside storage that `owner` keeps alive (many small blobs cut
  // from one allocation).
  static Blob shared(const uint8_t* data, size_t size, std::shared_ptr<const void> owner) {
    return Blob(data, size, std::move(owner));
  }
  static Blob external(External info, uint64_t size);

  // A sub-range sharing this blob's lifetime; the caller checks bounds. A
  // slice of an external blob has no digest (equal only to itself).
  Blob slice(uint64_t offset, uint64_t size) const;

  bool is_external() const { return external_ != nullptr; }
  const External* external_info() const { return external_.get(); }
  // In-memory bytes; nullptr for external (and empty) blobs.
  const uint8_t* data() const { return data_; }
  uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // Cheap content fingerprint: size plus the bytes at both ends. Equal bytes
  // give equal fingerprints whatever the kind; unequal bytes may collide.
  uint64_t fingerprint() const;
  // SHA-256 of the content (computed once and cached); for an external blob
  // the digest it came with, else its host's, else nullopt.
  std::optional<Digest> digest() const;
  // Copies the bytes to `dst` (memcpy, or the host's reader for external
  // bytes through its host); false when external bytes cannot be read.
  bool read_into(uint8_t* dst) const;
  // The same through the host's optional peek: false (and nothing said)
  // when the host cannot read the bytes now.
  bool peek_into(uint8_t* dst) const;

  // True when both hold the same bytes: memcmp when both are in memory,
  // identity or digests otherwise. Never true on a fingerprint alone.
  bool same_bytes(const Blob& other) const;

 private:
  Blob(const uint8_t* data, uint64_t size, std::shared_ptr<const void> keep_alive)
      : data_(size == 0 ? nullptr : data), size_(size), keep_alive_(std::move(keep_alive)) {}

  const uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
  std::shared_ptr<const void> keep_alive_;
  std::shared_ptr<const External> external_;
  // Allocated on first digest(); copies made after that share the result.
  mutable std::shared_ptr<const Digest> digest_cache_;
  // An external blob's edge bytes, read on first fingerprint() when the host
  // did not supply them.
  mutable std::shared_ptr<const std::array<uint8_t, 2 * kEdgeBytes>> edges_cache_;
};

}  // namespace etpack
