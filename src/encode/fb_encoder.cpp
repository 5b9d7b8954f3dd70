#include "encode/fb_encoder.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "core/checked_math.h"
#include "core/le_bytes.h"

namespace etpack {
namespace {

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
class Builder {
 public:
  explicit Builder(EncodePolicy policy) : policy_(policy), buf_(1024) { head_ = buf_.size(); }

  uint32_t offset() const { return static_cast<uint32_t>(buf_.size() - head_); }
  uint32_t minalign() const { return minalign_; }
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

  uint32_t create_string(const std::string& s) {
    prep(4, s.size() + 1);
    place<uint8_t>(0);
    place_bytes(reinterpret_cast<const uint8_t*>(s.data()), s.size());
    place<uint32_t>(static_cast<uint32_t>(s.size()));
    return offset();
  }

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
    slots_.assign(num_fields, 0);
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
    size_t used = slots_.size();
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
      if (last.at != 0 && last.field_offsets == field_offsets) {
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
        python_vtables_.emplace(field_offsets, vt);
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

  uint8_t* bytes() { return reinterpret_cast<uint8_t*>(buf_.data()); }
  const uint8_t* bytes() const { return reinterpret_cast<const uint8_t*>(buf_.data()); }

  EncodePolicy policy_;
  std::vector<UninitializedByte> buf_;
  size_t head_ = 0;
  uint32_t minalign_ = 1;
  bool overflow_ = false;
  std::vector<uint32_t> slots_;
  std::vector<uint16_t> field_offsets_;
  uint32_t table_end_ = 0;
  std::map<std::vector<uint16_t>, uint32_t> python_vtables_;
  std::vector<uint32_t> flatc_vtables_;
};

class Encoder {
 public:
  Encoder(const EncodeOptions& options) : options_(options), b_(options.policy) {}

  uint32_t encode_table(const TableValue& t) {
    const auto& fields = t.def->fields;
    // This table's child offsets sit at offsets_[base, base + fields):
    // one stack for the whole tree instead of a vector per table. Children
    // push above it, so it is indexed, never referenced, while they run.
    const size_t base = offsets_.size();
    offsets_.resize(base + fields.size(), 0);
    // Children first, in declaration order (both builders meet them so).
    for (const FieldDef& f : fields) {
      const Value& v = t.fields[f.id];
      if (v.absent()) continue;
      uint32_t child = 0;
      switch (f.type) {
        case BaseType::kString: child = b_.create_string(v.str()); break;
        case BaseType::kTable:
        case BaseType::kUnion: child = encode_table(v.table()); break;
        case BaseType::kVector: child = encode_vector(*t.def, f, v); break;
        default: continue;
      }
      offsets_[base + f.id] = child;
    }
    b_.start_table(fields.size());
    const uint32_t* offsets = offsets_.data() + base;
    if (options_.policy == EncodePolicy::kReferencePython) {
      for (const FieldDef& f : fields) add_field(t, f, offsets);
    } else {
      for (size_t size : {8, 4, 2, 1})
        for (size_t i = fields.size(); i-- > 0;) {
          const FieldDef& f = fields[i];
          size_t field_size = is_scalar(f.type) ? scalar_size(f.type) : 4;
          if (field_size == size) add_field(t, f, offsets);
        }
    }
    offsets_.resize(base);
    // By the table type's address: a collision only costs a search.
    const size_t slot = (reinterpret_cast<uintptr_t>(t.def) / alignof(TableDef)) % kLastVtables;
    return b_.end_table(last_vtables_[slot]);
  }

  Builder& builder() { return b_; }
  const std::string& unreadable() const { return unreadable_; }

 private:
  uint32_t alignment_for(const TableDef& table, const FieldDef& f) const {
    if (f.force_align != 0) {
      std::string key = table.name + "." + f.name;
      for (const auto& [name, align] : options_.force_align_overrides)
        if (name == key) return align;
      return f.force_align;
    }
    return static_cast<uint32_t>(std::max<size_t>(1, scalar_size(f.element)));
  }

  uint32_t encode_vector(const TableDef& table, const FieldDef& f, const Value& v) {
    if (v.is_items()) {
      const auto& items = v.items();
      // The children's offsets on the shared stack, like a table's.
      const size_t base = offsets_.size();
      offsets_.reserve(base + items.size());
      for (const Value& item : items) {
        const uint32_t child = item.is_table() ? encode_table(item.table()) : b_.create_string(item.is_string() ? item.str() : "");
        offsets_.push_back(child);
      }
      b_.start_vector(4, items.size(), 4);
      for (size_t i = items.size(); i-- > 0;) b_.prepend_uoffset(offsets_[base + i]);
      offsets_.resize(base);
      return b_.end_vector(items.size());
    }
    const Blob& raw = v.scalars();
    size_t width = scalar_size(f.element);
    size_t count = static_cast<size_t>(raw.size() / width);
    b_.start_vector(width, count, alignment_for(table, f));
    if (raw.is_external()) {
      // Bytes that live with the host but belong inside the flatbuffer.
      if (!b_.place_blob(raw)) unreadable_ = table.name + "." + f.name;
    } else {
      b_.place_bytes(raw.data(), count * width);
    }
    return b_.end_vector(count);
  }

  void add_field(const TableValue& t, const FieldDef& f, const uint32_t* offsets) {
    const Value& v = t.fields[f.id];
    if (!is_scalar(f.type)) {
      if (offsets[f.id] == 0) return;
      b_.prepend_uoffset(offsets[f.id]);
      b_.slot(f.id);
      return;
    }
    if (!v.is_scalar()) return;  // absent scalars are their default
    Scalar s = v.scalar();
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
        b_.prepend<uint64_t>(bits);
        break;
      }
      case BaseType::kFloat: {
        const float fv = static_cast<float>(s.d);
        const bool same = options_.policy == EncodePolicy::kReferencePython
                              ? s.d == f.default_real  // Python compares the double it was given
                              : fv == static_cast<float>(f.default_real);  // flatc compares floats
        if (same) return;
        uint32_t bits;
        std::memcpy(&bits, &fv, 4);
        b_.prepend<uint32_t>(bits);
        break;
      }
      default: {
        if (is_signed_integer(f.type) ? s.i == f.default_integer
                                      : s.u == static_cast<uint64_t>(f.default_integer))
          return;
        switch (scalar_size(f.type)) {
          case 1: b_.prepend<uint8_t>(static_cast<uint8_t>(s.u)); break;
          case 2: b_.prepend<uint16_t>(static_cast<uint16_t>(s.u)); break;
          case 4: b_.prepend<uint32_t>(static_cast<uint32_t>(s.u)); break;
          default: b_.prepend<uint64_t>(s.u);
        }
      }
    }
    b_.slot(f.id);
  }

  const EncodeOptions& options_;
  Builder b_;
  std::string unreadable_;  // a field whose external bytes could not be read
  std::vector<uint32_t> offsets_;  // child offsets of the tables and lists being encoded
  static constexpr size_t kLastVtables = 64;
  Builder::LastVtable last_vtables_[kLastVtables];  // by table type (see encode_table)
};

}  // namespace

Result<EncodedFlatbuffer> encode_flatbuffer(const TableValue& root, const std::string& file_identifier,
                                            const EncodeOptions& options) {
  if (file_identifier.size() != 4)
    return make_error(ErrorCode::kInvalidArgument, "file identifier must be 4 bytes, got '" + file_identifier + "'");
  for (const auto& [name, align] : options.force_align_overrides)
    if (!is_power_of_two(align))
      return make_error(ErrorCode::kInvalidAlignment, "force_align for " + name + " must be a power of two, got " + std::to_string(align));
  Encoder encoder(options);
  uint32_t root_offset = encoder.encode_table(root);
  Builder& b = encoder.builder();
  b.finish(root_offset, file_identifier);
  if (!encoder.unreadable().empty())
    return make_error(ErrorCode::kIoError, "could not read the external bytes of " + encoder.unreadable());
  if (b.overflowed())
    return make_error(ErrorCode::kLimitExceeded, "flatbuffer would exceed the 2 GiB flatbuffer limit");
  EncodedFlatbuffer out;
  out.max_alignment = b.minalign();
  out.bytes = b.take();
  return out;
}

}  // namespace etpack
