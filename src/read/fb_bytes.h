// Bounds-checked reading of one flatbuffer's tables, vectors and strings,
// schema-driven: the checks shared by the decoder that builds the model
// (read/fb_decoder.cpp) and the writer that streams a program's JSON reply
// straight from the bytes (ops/program_reply.cpp). Every read stays
// inside the buffer; a bad offset is kMalformedFile naming it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/checked_math.h"
#include "core/le_bytes.h"
#include "core/result.h"
#include "schema/schema.h"

namespace etpack {

// A table whose vtable has been checked.
struct FbTable {
  uint64_t pos = 0;
  uint64_t vtable = 0;
  uint16_t vtable_size = 0;
};

// A vector's elements: `count` of `width` bytes from `first` (all in bounds).
struct FbVector {
  uint64_t first = 0;
  uint64_t count = 0;
  size_t width = 0;
};

class FbBytes {
 public:
  // `base` is added to offsets in messages (the buffer may be a file slice).
  // `as_runtime`: only what a reader without the verifier needs to stay
  // in the buffer is checked (the runtime reads a .ptd so): an offset may
  // be 0 or unaligned, a vtable's size odd or past the end (each slot is
  // bounds-checked where a field is read).
  FbBytes(const uint8_t* data, uint64_t size, uint64_t base, bool as_runtime = false)
      : data_(data), size_(size), base_(base), as_runtime_(as_runtime) {}

  const uint8_t* data() const { return data_; }
  uint64_t size() const { return size_; }
  bool has(uint64_t at, uint64_t n) const { return range_within(at, n, size_); }

  Error fail(uint64_t at, const std::string& what) const {
    return make_error(ErrorCode::kMalformedFile, what + " (at byte offset " + std::to_string(base_ + at) + ")");
  }

  // Follows the uoffset stored at `at` and returns the absolute target.
  Result<uint64_t> follow(uint64_t at) const {
    if (!has(at, 4)) return fail(at, "offset field past the end of the flatbuffer");
    const uint32_t offset = read_le<uint32_t>(data_ + at);
    // flatbuffers::Verifier::VerifyOffset: "may not point to itself".
    if (offset == 0 && !as_runtime_) return fail(at, "offset 0 points at itself");
    uint64_t target = at + offset;
    if (target >= size_) return fail(at, "offset points past the end of the flatbuffer");
    if (target % 4 != 0 && !as_runtime_) return fail(at, "offset target is not 4-byte aligned");
    return target;
  }

  Result<FbTable> table(uint64_t pos, const TableDef& def) const {
    if (!has(pos, 4)) return fail(pos, def.name + " table past the end");
    int64_t soffset = static_cast<int32_t>(read_le<uint32_t>(data_ + pos));
    int64_t vt_signed = static_cast<int64_t>(pos) - soffset;
    if (vt_signed < 0 || static_cast<uint64_t>(vt_signed) >= size_) return fail(pos, def.name + " vtable offset out of range");
    uint64_t vt = static_cast<uint64_t>(vt_signed);
    // As flatbuffers::Verifier::VerifyTableStart: the vtable's size field is
    // aligned and in bounds, the size even and the vtable in bounds; nothing
    // more. A size of 0 or 2 holds no field (every field reads as absent),
    // and the table's inline size (the vtable's second entry) is never read
    // by the verifier or any accessor, so it is not checked: 0, or a size
    // past the end, loads in the runtime as any other (RUNTIME.md, round 2).
    // Each field is bounds-checked where it is read (field()).
    if ((vt % 2 != 0 && !as_runtime_) || !has(vt, 2)) return fail(vt, def.name + " vtable misaligned or truncated");
    uint16_t vt_size = read_le<uint16_t>(data_ + vt);
    if (as_runtime_) return FbTable{pos, vt, vt_size};
    if (vt_size % 2 != 0 || !has(vt, vt_size))
      return fail(vt, def.name + " vtable size " + std::to_string(vt_size) + " invalid");
    return FbTable{pos, vt, vt_size};
  }

  // The bytes a non-scalar field or vector element takes in place: a
  // struct's size (stored inline), else a 4-byte uoffset.
  static size_t inline_struct_size(BaseType type, const TableDef* table) {
    return type == BaseType::kTable && table != nullptr && table->is_struct && table->bytesize > 0 ? table->bytesize : 4;
  }

  // Where field `f`'s value (or, for offsets, its uoffset) lies; 0 when the
  // table does not hold it.
  Result<uint64_t> field(const FbTable& t, const TableDef& def, const FieldDef& f) const {
    uint64_t slot = 4 + 2 * static_cast<uint64_t>(f.id);
    // flatbuffers' GetOptionalFieldOffset reads a slot that starts inside
    // the vtable's size (an odd size includes half a slot).
    if (as_runtime_ ? slot >= t.vtable_size : slot + 2 > t.vtable_size) return uint64_t{0};
    if (as_runtime_ && !has(t.vtable + slot, 2)) return fail(t.vtable + slot, def.name + "." + f.name + "'s vtable slot lies outside the flatbuffer");
    uint16_t voff = read_le<uint16_t>(data_ + t.vtable + slot);
    if (voff == 0) return uint64_t{0};
    size_t width = is_scalar(f.type) ? scalar_size(f.type) : inline_struct_size(f.type, f.table);
    // Not bounded by the vtable's object size: the reference builder shares
    // vtables between tables of different sizes, so only the buffer bounds.
    // A voffset of 1..3 points into the table's own soffset: the verifier
    // accepts it where the field's alignment allows (a 1-byte field) and the
    // runtime reads those bytes; the verifier judges the alignment.
    if (!has(t.pos + voff, width))
      return fail(t.vtable + slot, def.name + "." + f.name + " lies outside the flatbuffer");
    return t.pos + voff;
  }

  // The string whose uoffset is at `at` (NUL-terminated, as the format says).
  Result<std::string_view> string(uint64_t at) const {
    ETP_ASSIGN(uint64_t s, follow(at));
    if (!has(s, 4)) return fail(s, "string length past the end");
    uint64_t len = read_le<uint32_t>(data_ + s);
    if (!has(s + 4, len + 1)) return fail(s, "string of " + std::to_string(len) + " bytes runs past the end");
    return std::string_view(reinterpret_cast<const char*>(data_ + s + 4), static_cast<size_t>(len));
  }

  // Vector field `f` of `def` whose uoffset is at `at`.
  Result<FbVector> vector(uint64_t at, const TableDef& def, const FieldDef& f) const {
    ETP_ASSIGN(uint64_t v, follow(at));
    if (!has(v, 4)) return fail(v, def.name + "." + f.name + " vector length past the end");
    uint64_t count = read_le<uint32_t>(data_ + v);
    size_t width = is_scalar(f.element) ? scalar_size(f.element) : inline_struct_size(f.element, f.table);
    auto bytes = checked_mul(count, width);
    if (!bytes || !has(v + 4, *bytes))
      return fail(v, def.name + "." + f.name + " vector of " + std::to_string(count) + " elements runs past the end");
    return FbVector{v + 4, count, width};
  }

 private:
  const uint8_t* data_;
  uint64_t size_;
  uint64_t base_;
  bool as_runtime_;
};

}  // namespace etpack
