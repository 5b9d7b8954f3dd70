// Flatbuffers' generated verifier and accessors read through typed pointers,
// which is undefined behaviour at a misaligned address. A Blob may view
// caller memory at any address (a .ptd inside a larger buffer, a slice), so
// code that hands bytes to flatbuffers' C++ API goes through AlignedBytes:
// a view when the bytes are already aligned, an aligned copy otherwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace etpack {

class AlignedBytes {
 public:
  // What malloc guarantees; the runtime asks the same of program data.
  static constexpr size_t kAlignment = alignof(std::max_align_t);

  // `data` must stay alive and unchanged while this object is used (when it
  // is not copied). Copies at most `size` bytes, which the caller holds.
  AlignedBytes(const uint8_t* data, size_t size) : data_(data), size_(size) {
    if (size != 0 && reinterpret_cast<uintptr_t>(data) % kAlignment != 0) {
      copy_.resize((size + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t));
      std::memcpy(copy_.data(), data, size);
      data_ = reinterpret_cast<const uint8_t*>(copy_.data());
    }
  }
  AlignedBytes(const AlignedBytes&) = delete;
  AlignedBytes& operator=(const AlignedBytes&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool copied() const { return !copy_.empty(); }

 private:
  const uint8_t* data_;
  size_t size_;
  std::vector<std::max_align_t> copy_;
};

}  // namespace etpack
