// Positions in a flatbuffer that starts at byte 0 of a file (a .pte or a
// .ptd): enough of a reader for a test to find the bytes it patches. No
// checks: the files walked are the test's own known vectors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/le_bytes.h"

namespace etpack::testing {

struct Walk {
  const std::vector<uint8_t>& b;
  uint32_t u32(size_t at) const { return read_le<uint32_t>(&b[at]); }
  size_t root() const { return u32(0); }
  size_t vtable(size_t table) const { return table - static_cast<int32_t>(u32(table)); }
  // Where field `id` of `table` lies (0: absent).
  size_t field(size_t table, size_t id) const {
    const size_t vt = vtable(table), slot = 4 + 2 * id;
    if (slot + 2 > read_le<uint16_t>(&b[vt])) return 0;
    const uint16_t voffset = read_le<uint16_t>(&b[vt + slot]);
    return voffset ? table + voffset : 0;
  }
  size_t deref(size_t at) const { return at + u32(at); }
  size_t table(size_t t, size_t id) const { return deref(field(t, id)); }
  // Element i of vector field `id` (tables: its table; else its first byte).
  size_t element(size_t t, size_t id, size_t i, size_t width = 4, bool tables = true) const {
    const size_t first = deref(field(t, id)) + 4 + width * i;
    return tables ? deref(first) : first;
  }
  size_t string(size_t t, size_t id) const { return deref(field(t, id)) + 4; }
};

}  // namespace etpack::testing
