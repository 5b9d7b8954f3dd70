// The back-to-front flatbuffer builder both encoders drive: the model
// encoder (encode/fb_encoder.cpp) and the value-stream encoder
// (encode/stream_encoder.cpp). Offsets are counted from the end, as both
// reference builders count them; vtables are shared by the policy's rule
// (see encode/fb_encoder.h).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "core/blob.h"
#include "core/le_bytes.h"
#include "encode/fb_encoder.h"
#include "model/fb_value.h"

namespace etpack {

constexpr uint64_t kMaxFlatbufferSize = 0x7FFFFFFFu;  // flatbuffers' 2 GiB limit

// Bytes the builder's buffer gets uninitialized: every byte below the end is
// written (values, padding zeros) before head_ passes it, so zero-filling
// each grown buffer first was wasted work.
struct UninitializedByte {
  uint8_t value;
  UninitializedByte() {}  // NOLINT: leaves `value` unset on purpose
};
static_assert(sizeof(UninitializedByte) == 1, "a byte buffer");

// A back-to-front byte buffer: offsets are counted from the end, as both
// reference builders count them.
class FlatBuilder {
 public:
  explicit FlatBuilder(EncodePolicy policy) : policy_(policy), buf_(1024) { head_ = buf_.size(); }

  uint32_t offset() const { return static_cast<uint32_t>(buf_.size() - head_); }
  uint32_t minalign() const { return minalign_; }

  // A point to come back to: rollback() drops what was placed after it and
  // forgets the vtables made since, so the builder is as it was (a guess
  // of the stream encoder that turned out wrong).
  struct Mark {
    uint32_t offset = 0;
    uint32_t minalign = 1;
    bool overflow = false;
    size_t python_vtables = 0;
    size_t flatc_vtables = 0;
  };
  Mark mark() const { return {offset(), minalign_, overflow_, python_log_.size(), flatc_vtables_.size()}; }
  void rollback(const Mark& m) {
    head_ = buf_.size() - m.offset;  // the buffer may have grown since: offsets count from its end
    minalign_ = m.minalign;
    overflow_ = m.overflow;
    while (python_log_.size() > m.python_vtables) {
      python_vtables_.erase(python_log_.back());
      python_log_.pop_back();
    }
    flatc_vtables_.resize(m.flatc_vtables);
  }
  bool overflowed() const { return overflow_; }

  // Pads so that after `additional` more bytes the offset is a multiple of
  // `size` (a power of two).
  void prep(uint32_t size, uint64_t additional) {
    if (size > minalign_) minalign_ = size;
    uint64_t pad = (~(static_cast<uint64_t>(offset()) + additional) + 1) & (size - 1);
    reserve(pad + additional);
    pad_zero(pad);
  }

  void pad_zero(uint64_t n) {
    reserve(n);
    head_ -= n;
    std::memset(bytes() + head_, 0, n);
  }

  template <typename T>
  void place(T v) {
    reserve(sizeof(T));
    head_ -= sizeof(T);
    write_le<T>(bytes() + head_, v);
  }

  void place_bytes(const uint8_t* data, size_t n) {
    reserve(n);
    head_ -= n;
    if (n != 0) std::memcpy(bytes() + head_, data, n);  // copy into the flatbuffer
  }

  bool place_blob(const Blob& blob) {
    reserve(blob.size());
    head_ -= static_cast<size_t>(blob.size());
    return blob.read_into(bytes() + head_);  // copy into the flatbuffer
  }

  template <typename T>
  void prepend(T v) {
    prep(sizeof(T), 0);
    place<T>(v);
  }

  void prepend_uoffset(uint32_t target) {
    prep(4, 0);
    place<uint32_t>(offset() - target + 4);
  }

  uint32_t create_string(const char* data, size_t size) {
    prep(4, size + 1);
    place<uint8_t>(0);
    place_bytes(reinterpret_cast<const uint8_t*>(data), size);
    place<uint32_t>(static_cast<uint32_t>(size));
    return offset();
  }
  uint32_t create_string(const std::string& s) { return create_string(s.data(), s.size()); }

  void start_vector(size_t elem_size, size_t count, uint32_t alignment) {
    uint64_t bytes = static_cast<uint64_t>(elem_size) * count;
    prep(4, bytes);
    prep(alignment, bytes);
  }

  uint32_t end_vector(size_t count) {
    place<uint32_t>(static_cast<uint32_t>(count));
    return offset();
  }

  void start_table(size_t num_fields) {
    // Filled in place (not assign(): an out-of-line call per table).
    if (slots_.size() < num_fields) slots_.resize(num_fields);
    for (size_t i = 0; i < num_fields; ++i) slots_[i] = 0;
    num_slots_ = num_fields;
    table_end_ = offset();
  }

  void slot(size_t id) { slots_[id] = offset(); }

  // The vtable the last table of a type had (its field offsets and where
  // it is): tables of one type mostly set the same fields, so most tables
  // find theirs here without a search of every vtable so far.
  struct LastVtable {
    std::vector<uint16_t> field_offsets;
    uint32_t at = 0;
  };

  uint32_t end_table(LastVtable& last) {
    prepend<int32_t>(0);  // placeholder for the vtable offset
    uint32_t object_offset = offset();
    size_t used = num_slots_;
    while (used > 0 && slots_[used - 1] == 0) --used;
    std::vector<uint16_t>& field_offsets = field_offsets_;  // reused: one table at a time
    field_offsets.resize(used);
    for (size_t i = 0; i < used; ++i)
      field_offsets[i] = slots_[i] == 0 ? 0 : static_cast<uint16_t>(object_offset - slots_[i]);
    uint16_t object_size = static_cast<uint16_t>(object_offset - table_end_);

    uint32_t existing = 0;
    if (policy_ == EncodePolicy::kReferencePython) {
      // The map keeps the first vtable of each offset list, and so does
      // `last` (it is filled from the map): the same vtable either way.
      if (last.at != 0 && same_offsets(last.field_offsets, field_offsets)) {
        existing = last.at;
      } else {
        auto it = python_vtables_.find(field_offsets);
        if (it != python_vtables_.end()) {
          existing = it->second;
          last.field_offsets = field_offsets;
          last.at = existing;
        }
      }
    } else {
      for (uint32_t vt : flatc_vtables_) {
        const uint8_t* p = bytes() + (buf_.size() - vt);
        uint16_t vt_size = read_le<uint16_t>(p);
        if (vt_size != 4 + 2 * used || read_le<uint16_t>(p + 2) != object_size) continue;
        bool same = true;
        for (size_t i = 0; i < used && same; ++i) same = read_le<uint16_t>(p + 4 + 2 * i) == field_offsets[i];
        if (same) {
          existing = vt;
          break;
        }
      }
    }
    size_t object_pos = buf_.size() - object_offset;
    if (existing != 0) {
      // The vtable lies later in the buffer (lower offset): negative soffset.
      write_le<int32_t>(bytes() + object_pos,
                        static_cast<int32_t>(static_cast<int64_t>(existing) - static_cast<int64_t>(object_offset)));
    } else {
      for (size_t i = used; i-- > 0;) prepend<uint16_t>(field_offsets[i]);
      prepend<uint16_t>(object_size);
      prepend<uint16_t>(static_cast<uint16_t>(2 * (used + 2)));
      uint32_t vt = offset();
      object_pos = buf_.size() - object_offset;
      write_le<int32_t>(bytes() + object_pos, static_cast<int32_t>(vt - object_offset));
      if (policy_ == EncodePolicy::kReferencePython) {
        python_log_.push_back(python_vtables_.emplace(field_offsets, vt).first);
        last.field_offsets = field_offsets;
        last.at = vt;
      } else {
        flatc_vtables_.push_back(vt);
      }
    }
    return object_offset;
  }

  void finish(uint32_t root, const std::string& identifier) {
    prep(minalign_, 8);
    prep(4, 4);
    for (size_t i = 4; i-- > 0;) place<uint8_t>(static_cast<uint8_t>(identifier[i]));
    prepend_uoffset(root);
  }

  std::vector<uint8_t> take() {
    return std::vector<uint8_t>(bytes() + head_, bytes() + buf_.size());
  }

 private:
  void reserve(uint64_t n) {
    if (n > head_) grow(n);
  }
  // Out of line (said explicitly: a member defined in the class is inline,
  // and the wasm build inlined it, which kept reserve() itself from being
  // inlined): reserve() runs for every value placed, growth rarely.
  __attribute__((noinline)) void grow(uint64_t n) {
    uint64_t used = buf_.size() - head_;
    uint64_t want = std::max<uint64_t>(buf_.size() * 2, used + n + 1024);
    if (used + n > kMaxFlatbufferSize) {
      overflow_ = true;
      want = used + n;  // still keep memory safe; the caller reports the error
    }
    std::vector<UninitializedByte> grown(want);
    std::memcpy(reinterpret_cast<uint8_t*>(grown.data()) + (want - used), bytes() + head_, used);  // relocate on growth
    head_ = want - used;
    buf_.swap(grown);
  }

  // Two short offset lists compared in line (a memcmp call cost more than
  // the comparison: one per table).
  static bool same_offsets(const std::vector<uint16_t>& a, const std::vector<uint16_t>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i]) return false;
    return true;
  }

  uint8_t* bytes() { return reinterpret_cast<uint8_t*>(buf_.data()); }
  const uint8_t* bytes() const { return reinterpret_cast<const uint8_t*>(buf_.data()); }

  EncodePolicy policy_;
  std::vector<UninitializedByte> buf_;
  size_t head_ = 0;
  uint32_t minalign_ = 1;
  bool overflow_ = false;
  std::vector<uint32_t> slots_;  // the table being built: the first num_slots_
  size_t num_slots_ = 0;
  std::vector<uint16_t> field_offsets_;
  uint32_t table_end_ = 0;
  std::map<std::vector<uint16_t>, uint32_t> python_vtables_;
  std::vector<uint32_t> flatc_vtables_;
  // The python vtables in the order made (few: one per distinct field layout).
  std::vector<std::map<std::vector<uint16_t>, uint32_t>::iterator> python_log_;
};

// schema.h's scalar_size, is_signed_integer and is_scalar from a table:
// they are asked for every scalar placed, and are calls into another library.
struct ScalarTraits {
  uint8_t size = 0;
  bool is_signed = false;
  bool is_scalar = false;
};
inline const ScalarTraits& scalar_traits(BaseType t) {
  constexpr size_t kTypes = static_cast<size_t>(BaseType::kUnion) + 1;
  static const std::array<ScalarTraits, kTypes> table = [] {
    std::array<ScalarTraits, kTypes> out{};
    for (size_t i = 0; i < kTypes; ++i) {
      const BaseType b = static_cast<BaseType>(i);
      out[i] = {static_cast<uint8_t>(scalar_size(b)), is_signed_integer(b), is_scalar(b)};
    }
    return out;
  }();
  const size_t i = static_cast<size_t>(t);
  return table[i < kTypes ? i : 0];
}

// A scalar field of the table being built, unless it equals its default.
inline void add_scalar_field(FlatBuilder& b, const FieldDef& f, Scalar s, EncodePolicy policy) {
  switch (f.type) {
    // A float is skipped when it compares equal (==) to the default, as
    // both reference builders decide: Python's `x != d` on Python floats
    // (doubles) and flatc's IsTheSameAs on the field's own type. So -0.0
    // is dropped like +0.0 (it reads back as the default, +0.0: byte parity
    // comes first) and NaN, never equal to anything, is always written.
    // The bits written are the value's own, so every other double (and
    // every list item) survives bit for bit.
    case BaseType::kDouble: {
      if (s.d == f.default_real) return;
      uint64_t bits;
      std::memcpy(&bits, &s.d, 8);
      b.prepend<uint64_t>(bits);
      break;
    }
    case BaseType::kFloat: {
      const float fv = static_cast<float>(s.d);
      const bool same = policy == EncodePolicy::kReferencePython
                            ? s.d == f.default_real  // Python compares the double it was given
                            : fv == static_cast<float>(f.default_real);  // flatc compares floats
      if (same) return;
      uint32_t bits;
      std::memcpy(&bits, &fv, 4);
      b.prepend<uint32_t>(bits);
      break;
    }
    default: {
      const ScalarTraits& traits = scalar_traits(f.type);
      if (traits.is_signed ? s.i == f.default_integer : s.u == static_cast<uint64_t>(f.default_integer)) return;
      switch (traits.size) {
        case 1: b.prepend<uint8_t>(static_cast<uint8_t>(s.u)); break;
        case 2: b.prepend<uint16_t>(static_cast<uint16_t>(s.u)); break;
        case 4: b.prepend<uint32_t>(static_cast<uint32_t>(s.u)); break;
        default: b.prepend<uint64_t>(s.u);
      }
    }
  }
  b.slot(f.id);
}

// The alignment of a scalar vector: its force_align (or the caller's
// override for "Table.field"), else its element size.
inline uint32_t vector_alignment(const TableDef& table, const FieldDef& f, const EncodeOptions& options) {
  if (f.force_align != 0) {
    std::string key = table.name + "." + f.name;
    for (const auto& [name, align] : options.force_align_overrides)
      if (name == key) return align;
    return f.force_align;
  }
  return static_cast<uint32_t>(std::max<size_t>(1, scalar_size(f.element)));
}

}  // namespace etpack
