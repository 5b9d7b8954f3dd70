// Where a program reader puts the boxes of the tables and scalar lists it
// makes: a bump arena of a few large chunks instead of one malloc (and, at
// the end, one free) per box. A program object read for serializing is tens
// of thousands of small boxes, and allocating and freeing them one by one
// was about a sixth of the wasm time of serialize.
//
// Boxes stay std::shared_ptrs (TableBox, Value's scalar box), made with
// std::allocate_shared and an ArenaAllocator. The arena counts the boxes it
// holds (plus one reference of its maker's): freeing a box gives no bytes
// back, and the chunks are freed together when the count reaches zero. A
// box replaced later (copy on write, a field overwritten) keeps its bytes
// until then: the model of one call.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace etpack {

class BoxArena {
 public:
  // A new arena with one reference (the caller's); release() it.
  static BoxArena* create() { return new BoxArena(); }
  // Frees the arena and every chunk at the last reference.
  void release() noexcept {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

  // `size` bytes aligned to `align` (at most alignof(std::max_align_t)),
  // holding a reference until release()d: one box.
  void* allocate(size_t size, size_t align) {
    refs_.fetch_add(1, std::memory_order_relaxed);
    size_t at = (used_ + align - 1) & ~(align - 1);
    if (chunk_ == nullptr || at > capacity_ || size > capacity_ - at) return allocate_slow(size);
    used_ = at + size;
    return chunk_ + at;
  }

  BoxArena(const BoxArena&) = delete;
  BoxArena& operator=(const BoxArena&) = delete;

 private:
  BoxArena() = default;
  ~BoxArena();
  void* allocate_slow(size_t size);

  std::atomic<size_t> refs_{1};
  unsigned char* chunk_ = nullptr;  // the chunk being filled
  size_t used_ = 0;
  size_t capacity_ = 0;
  std::vector<unsigned char*> chunks_;  // every chunk, freed with the arena
};

// A std allocator over a BoxArena for std::allocate_shared: each allocation
// holds a reference to the arena until its deallocate() (which frees no
// bytes). Copies of the allocator hold none: the box they serve does.
template <typename T>
class ArenaAllocator {
 public:
  using value_type = T;

  // `arena` must not be null and must live until the allocation is freed.
  explicit ArenaAllocator(BoxArena* arena) noexcept : arena_(arena) {}
  template <typename U>
  ArenaAllocator(const ArenaAllocator<U>& other) noexcept : arena_(other.arena()) {}  // NOLINT: rebinding

  T* allocate(size_t n) {
    static_assert(alignof(T) <= alignof(std::max_align_t), "the arena aligns to max_align_t at most");
    if (n > SIZE_MAX / sizeof(T)) std::abort();  // as operator new does without exceptions
    return static_cast<T*>(arena_->allocate(n * sizeof(T), alignof(T)));
  }
  // The arena may be freed here (its last box): nothing reads it after.
  void deallocate(T*, size_t) noexcept { arena_->release(); }

  BoxArena* arena() const noexcept { return arena_; }
  template <typename U>
  bool operator==(const ArenaAllocator<U>& other) const noexcept { return arena_ == other.arena(); }
  template <typename U>
  bool operator!=(const ArenaAllocator<U>& other) const noexcept { return arena_ != other.arena(); }

 private:
  BoxArena* arena_;
};

}  // namespace etpack
