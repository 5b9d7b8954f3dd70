#include "core/blob.h"

#include <algorithm>

#include "core/sha256.h"

namespace etpack {
namespace {

uint64_t fnv1a(uint64_t hash, const uint8_t* data, size_t size) {
  for (size_t i = 0; i < size; ++i) {
    hash ^= data[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

}  // namespace

bool Blob::read_into(uint8_t* dst) const {
  if (size_ == 0) return true;
  if (!is_external()) {
    std::memcpy(dst, data_, static_cast<size_t>(size_));
    return true;
  }
  return external_->host != nullptr && external_->host->read(external_->source, external_->offset, size_, dst);
}

bool Blob::peek_into(uint8_t* dst) const {
  if (size_ == 0 || !is_external()) return read_into(dst);
  return external_->host != nullptr && external_->host->peek(external_->source, external_->offset, size_, dst);
}

Blob Blob::external(External info, uint64_t size) {
  Blob b;
  b.size_ = size;
  b.external_ = std::make_shared<const External>(std::move(info));
  return b;
}

Blob Blob::slice(uint64_t offset, uint64_t size) const {
  if (!is_external()) {
    Blob b(data_ + offset, size, keep_alive_);
    return b;
  }
  External info;
  info.source = external_->source;
  info.host = external_->host;
  info.offset = external_->offset + offset;
  if (offset == 0 && size == size_) return *this;
  return external(std::move(info), size);
}

uint64_t Blob::fingerprint() const {
  uint64_t hash = 0xcbf29ce484222325ull;
  uint8_t size_bytes[8];
  for (size_t i = 0; i < 8; ++i) size_bytes[i] = static_cast<uint8_t>(size_ >> (8 * i));
  hash = fnv1a(hash, size_bytes, sizeof(size_bytes));
  const size_t edge = static_cast<size_t>(std::min<uint64_t>(size_, kEdgeBytes));
  if (edge == 0) return hash;
  if (!is_external()) {
    hash = fnv1a(hash, data_, edge);
    return fnv1a(hash, data_ + (size_ - edge), edge);
  }
  if (external_->head.size() == edge && external_->tail.size() == edge) {
    hash = fnv1a(hash, external_->head.data(), edge);
    return fnv1a(hash, external_->tail.data(), edge);
  }
  // Edges unknown (a slice of an external file, say): read them through the
  // host, 2 x 32 bytes, so that unequal data of equal size (the usual case:
  // same-shaped weights) is told apart without hashing whole ranges. If they
  // cannot be read, the blob fingerprints by size alone (dedup then relies on
  // digests).
  ExternalHost* host = external_->host.get();
  if (edges_cache_ == nullptr && host != nullptr) {
    auto edges = std::make_shared<std::array<uint8_t, 2 * kEdgeBytes>>();
    if (host->peek(external_->source, external_->offset, edge, edges->data()) &&
        host->peek(external_->source, external_->offset + (size_ - edge), edge, edges->data() + kEdgeBytes))
      edges_cache_ = std::move(edges);
  }
  if (edges_cache_ != nullptr) {
    hash = fnv1a(hash, edges_cache_->data(), edge);
    hash = fnv1a(hash, edges_cache_->data() + kEdgeBytes, edge);
  }
  return hash;
}

std::optional<Digest> Blob::digest() const {
  if (is_external()) {
    if (external_->digest) return external_->digest;
    if (digest_cache_) return *digest_cache_;
    if (external_->host == nullptr) return std::nullopt;
    auto d = external_->host->digest(external_->source, external_->offset, size_);
    if (d) digest_cache_ = std::make_shared<const Digest>(*d);
    return d;
  }
  if (!digest_cache_) digest_cache_ = std::make_shared<const Digest>(sha256(data_, static_cast<size_t>(size_)));
  return *digest_cache_;
}

bool Blob::same_bytes(const Blob& other) const {
  if (size_ != other.size_) return false;
  if (size_ == 0) return true;
  if (!is_external() && !other.is_external())
    return data_ == other.data_ || std::memcmp(data_, other.data_, static_cast<size_t>(size_)) == 0;
  if (is_external() && other.is_external() && external_->source == other.external_->source &&
      external_->offset == other.external_->offset)
    return true;
  auto a = digest(), b = other.digest();
  return a && b && *a == *b;
}

}  // namespace etpack
