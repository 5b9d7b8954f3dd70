#include "model/box_arena.h"

#include <algorithm>

namespace etpack {

namespace {
// Chunks double from 16 KiB to 256 KiB: a small program holds little spare,
// a large one needs few chunks.
constexpr size_t kFirstChunk = 16 * 1024;
constexpr size_t kMaxChunk = 256 * 1024;
}  // namespace

BoxArena::~BoxArena() {
  for (unsigned char* chunk : chunks_) ::operator delete(chunk);
}

// A new chunk (operator new aligns it for any box), at least `size` bytes.
void* BoxArena::allocate_slow(size_t size) {
  const size_t next = capacity_ == 0 ? kFirstChunk : std::min(kMaxChunk, 2 * capacity_);
  const size_t capacity = std::max(next, size);
  chunks_.reserve(chunks_.size() + 1);  // so that push_back cannot fail after the allocation
  chunk_ = static_cast<unsigned char*>(::operator new(capacity));
  chunks_.push_back(chunk_);
  capacity_ = capacity;
  used_ = size;
  return chunk_;
}

}  // namespace etpack
