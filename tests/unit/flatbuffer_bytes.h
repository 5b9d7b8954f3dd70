// Hand-made flatbuffers for tests: objects are laid out front to back at
// positions the test controls, and offsets are patched in afterwards, so a
// test can build exactly the broken structure it wants (offsets that point
// at themselves, vectors whose elements all point at one table, lengths near
// 2^32, ...). Not a general builder: the test decides every byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/blob.h"
#include "core/le_bytes.h"

namespace etpack::testing {

class FlatbufferBytes {
 public:
  // Bytes 0..8: the root offset (set by root()) and the identifier.
  explicit FlatbufferBytes(const char* identifier = "ET12") {
    u32(0);
    bytes.insert(bytes.end(), identifier, identifier + 4);
  }

  size_t pos() const { return bytes.size(); }
  void align(size_t a) {
    while (bytes.size() % a != 0) bytes.push_back(0);
  }
  size_t u8(uint8_t v) {
    bytes.push_back(v);
    return bytes.size() - 1;
  }
  size_t u16(uint16_t v) { return put(v); }
  size_t u32(uint32_t v) { return put(v); }
  size_t u64(uint64_t v) { return put(v); }

  // A vtable for a table of `object_size` bytes whose field i lives at
  // `field_offsets[i]` from the table start (0 = absent). Returns its position.
  size_t vtable(uint16_t object_size, const std::vector<uint16_t>& field_offsets) {
    align(2);
    size_t at = u16(static_cast<uint16_t>(4 + 2 * field_offsets.size()));
    u16(object_size);
    for (uint16_t f : field_offsets) u16(f);
    return at;
  }
  // Starts a table using the vtable at `vtable_pos` (writes its soffset).
  size_t table(size_t vtable_pos) {
    align(4);
    size_t at = pos();
    put(static_cast<uint32_t>(static_cast<int32_t>(static_cast<int64_t>(at) - static_cast<int64_t>(vtable_pos))));
    return at;
  }
  // Makes the uoffset at `at` point to `target` (which must not lie before it).
  void point(size_t at, size_t target) { write_le<uint32_t>(&bytes[at], static_cast<uint32_t>(target - at)); }
  void set_u32(size_t at, uint32_t v) { write_le<uint32_t>(&bytes[at], v); }
  void root(size_t table_pos) { point(0, table_pos); }

  // Writes a vector of `count` offsets, then the table `make_target()`
  // writes, and points every element at that one table. Returns the
  // vector's position.
  template <typename MakeTarget>
  size_t shared_vector(uint32_t count, MakeTarget make_target) {
    size_t vec = u32(count);
    std::vector<size_t> slots;
    for (uint32_t i = 0; i < count; ++i) slots.push_back(u32(0));
    size_t target = make_target();
    for (size_t s : slots) point(s, target);
    return vec;
  }

  Blob blob() const { return Blob::view(bytes.data(), bytes.size()); }

  std::vector<uint8_t> bytes;

 private:
  template <typename T>
  size_t put(T v) {
    size_t at = bytes.size();
    bytes.resize(at + sizeof(T));
    write_le<T>(&bytes[at], v);
    return at;
  }
};

// A Program whose execution_plan holds `plans` offsets to one ExecutionPlan
// whose values hold `values` offsets to one empty EValue: plans x values
// tables claimed by a few bytes per offset.
inline FlatbufferBytes program_with_shared_plans(uint32_t plans, uint32_t values) {
  FlatbufferBytes fb;
  size_t program = fb.table(fb.vtable(8, {0, 4}));
  size_t plans_field = fb.u32(0);
  fb.point(plans_field, fb.shared_vector(plans, [&] {
    size_t plan = fb.table(fb.vtable(8, {0, 0, 4}));
    size_t values_field = fb.u32(0);
    fb.point(values_field, fb.shared_vector(values, [&] { return fb.table(fb.vtable(4, {})); }));
    return plan;
  }));
  fb.root(program);
  return fb;
}

}  // namespace etpack::testing
