// Blob: a read-only byte range, either a view of caller-owned memory or
// keeping its own storage alive. Copying a Blob copies the reference, never
// the bytes: this is how weights travel through the core without copies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace etpack {

class Blob {
 public:
  Blob() = default;

  // A view of memory the caller keeps alive (and unchanged) for as long as any
  // Blob, Cord or plan built from it is in use.
  static Blob view(const uint8_t* data, size_t size) { return Blob(data, size, nullptr); }

  // Takes ownership of `bytes` (moved, not copied).
  static Blob own(std::vector<uint8_t> bytes) {
    auto holder = std::make_shared<std::vector<uint8_t>>(std::move(bytes));
    return Blob(holder->data(), holder->size(), holder);
  }

  // A sub-range sharing this blob's lifetime; the caller checks bounds.
  Blob slice(size_t offset, size_t size) const { return Blob(data_ + offset, size, keep_alive_); }

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  bool same_bytes(const Blob& other) const {
    return size_ == other.size_ &&
           (size_ == 0 || data_ == other.data_ || std::memcmp(data_, other.data_, size_) == 0);
  }

 private:
  Blob(const uint8_t* data, size_t size, std::shared_ptr<const void> keep_alive)
      : data_(size == 0 ? nullptr : data), size_(size), keep_alive_(std::move(keep_alive)) {}

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  std::shared_ptr<const void> keep_alive_;
};

}  // namespace etpack
