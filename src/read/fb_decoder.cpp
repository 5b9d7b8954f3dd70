#include "read/fb_decoder.h"

#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "core/checked_math.h"
#include "core/le_bytes.h"

namespace etpack {
namespace {

class Decoder {
 public:
  Decoder(const Blob& buffer, uint64_t base, const DecodeLimits& limits)
      : buf_(buffer), size_(buffer.size()), base_(base), limits_(limits) {
    auto scaled = checked_mul(static_cast<uint64_t>(size_), limits.memory_factor);
    budget_ = scaled ? *scaled + limits.memory_allowance : UINT64_MAX;
    total_ = budget_;
  }

  Result<TableValue> root(const TableDef& def) {
    if (size_ < 8) return fail(0, "flatbuffer is " + std::to_string(size_) + " bytes, smaller than its 8-byte preamble");
    ETP_ASSIGN(uint64_t table_pos, follow(0));
    return table(table_pos, def, 0);
  }

 private:
  Error fail(uint64_t at, const std::string& what) const {
    return make_error(ErrorCode::kMalformedFile, what + " (at byte offset " + std::to_string(base_ + at) + ")");
  }

  // Heap bytes one allocation costs beyond what it holds (allocator header,
  // shared_ptr control block), charged so that many tiny objects count.
  static constexpr uint64_t kAllocationOverhead = 32;
  static uint64_t table_cost(const TableDef& def) {
    return sizeof(TableValue) + def.fields.size() * sizeof(Value) + 2 * kAllocationOverhead;
  }

  // Charges `bytes` of model memory before they are allocated.
  Status charge(uint64_t bytes, uint64_t at) {
    if (bytes > budget_) {
      return make_error(ErrorCode::kResourceLimit,
                        "the flatbuffer would decode to more than " + std::to_string(total_ >> 20) + " MiB (" +
                            std::to_string(limits_.memory_factor) + " x its " + std::to_string(size_) +
                            " bytes + " + std::to_string(limits_.memory_allowance >> 20) +
                            " MiB): its offsets reach the same tables or vectors from many places; memory budget "
                            "exceeded at byte offset " + std::to_string(base_ + at));
    }
    budget_ -= bytes;
    return {};
  }

  bool has(uint64_t at, uint64_t n) const { return range_within(at, n, size_); }

  // Follows the uoffset stored at `at` and returns the absolute target.
  Result<uint64_t> follow(uint64_t at) {
    if (!has(at, 4)) return fail(at, "offset field past the end of the flatbuffer");
    uint64_t target = at + read_le<uint32_t>(buf_.data() + at);
    if (target >= size_) return fail(at, "offset points past the end of the flatbuffer");
    if (target % 4 != 0) return fail(at, "offset target is not 4-byte aligned");
    return target;
  }

  Result<TableValue> table(uint64_t pos, const TableDef& def, size_t depth) {
    if (depth > limits_.max_depth)
      return make_error(ErrorCode::kLimitExceeded, "flatbuffer nesting deeper than " + std::to_string(limits_.max_depth) +
                                                       " at byte offset " + std::to_string(base_ + pos));
    ETP_TRY(charge(table_cost(def), pos));
    if (!has(pos, 4)) return fail(pos, def.name + " table past the end");
    int64_t soffset = static_cast<int32_t>(read_le<uint32_t>(buf_.data() + pos));
    int64_t vt_signed = static_cast<int64_t>(pos) - soffset;
    if (vt_signed < 0 || static_cast<uint64_t>(vt_signed) >= size_) return fail(pos, def.name + " vtable offset out of range");
    uint64_t vt = static_cast<uint64_t>(vt_signed);
    if (vt % 2 != 0 || !has(vt, 4)) return fail(vt, def.name + " vtable misaligned or truncated");
    uint16_t vt_size = read_le<uint16_t>(buf_.data() + vt);
    uint16_t obj_size = read_le<uint16_t>(buf_.data() + vt + 2);
    if (vt_size < 4 || vt_size % 2 != 0 || !has(vt, vt_size)) return fail(vt, def.name + " vtable size " + std::to_string(vt_size) + " invalid");
    if (obj_size < 4 || !has(pos, obj_size)) return fail(pos, def.name + " table size " + std::to_string(obj_size) + " runs past the end");

    TableValue out(&def);
    for (const FieldDef& f : def.fields) {
      uint64_t slot = 4 + 2 * static_cast<uint64_t>(f.id);
      if (slot + 2 > vt_size) continue;
      uint16_t voff = read_le<uint16_t>(buf_.data() + vt + slot);
      if (voff == 0) continue;
      size_t width = is_scalar(f.type) ? scalar_size(f.type) : 4;
      // Not bounded by the vtable's object size: the reference builder shares
      // vtables between tables of different sizes, so only the buffer bounds.
      if (voff < 4 || !has(pos + voff, width))
        return fail(vt + slot, def.name + "." + f.name + " lies outside the flatbuffer");
      uint64_t at = pos + voff;
      const uint8_t* p = buf_.data() + at;
      switch (f.type) {
        case BaseType::kString: {
          ETP_ASSIGN(std::string s, string_at(at));
          out.fields[f.id] = Value::from_string(std::move(s));
          break;
        }
        case BaseType::kTable: {
          ETP_ASSIGN(uint64_t child, follow(at));
          ETP_ASSIGN(out.fields[f.id], table_value(child, *f.table, depth + 1));
          break;
        }
        case BaseType::kUnion: break;  // after the loop, once its type is known
        case BaseType::kVector: {
          ETP_ASSIGN(Value v, vector_at(at, def, f, depth));
          out.fields[f.id] = std::move(v);
          break;
        }
        case BaseType::kDouble: {
          uint64_t bits = read_le<uint64_t>(p);
          double d;
          std::memcpy(&d, &bits, 8);
          out.fields[f.id] = Value::from_double(d);
          break;
        }
        case BaseType::kFloat: {
          uint32_t bits = read_le<uint32_t>(p);
          float fl;
          std::memcpy(&fl, &bits, 4);
          out.fields[f.id] = Value::from_double(fl);
          break;
        }
        default: {
          if (is_signed_integer(f.type)) {
            int64_t v = 0;
            switch (width) {
              case 1: v = static_cast<int8_t>(p[0]); break;
              case 2: v = static_cast<int16_t>(read_le<uint16_t>(p)); break;
              case 4: v = static_cast<int32_t>(read_le<uint32_t>(p)); break;
              default: v = static_cast<int64_t>(read_le<uint64_t>(p));
            }
            out.fields[f.id] = Value::from_int(v);
          } else {
            uint64_t v = 0;
            switch (width) {
              case 1: v = p[0]; break;
              case 2: v = read_le<uint16_t>(p); break;
              case 4: v = read_le<uint32_t>(p); break;
              default: v = read_le<uint64_t>(p);
            }
            out.fields[f.id] = Value::from_uint(v);
          }
        }
      }
    }
    // Unions: the value's table type comes from the companion _type field.
    for (const FieldDef& f : def.fields) {
      if (f.type != BaseType::kUnion) continue;
      uint64_t slot = 4 + 2 * static_cast<uint64_t>(f.id);
      if (slot + 2 > vt_size) continue;
      uint16_t voff = read_le<uint16_t>(buf_.data() + vt + slot);
      uint64_t type = out.fields[f.id - 1u].is_scalar() ? out.fields[f.id - 1u].scalar().u : 0;
      if (voff == 0 || type == 0) {
        out.fields[f.id - 1u] = Value();
        continue;
      }
      if (type >= f.union_def->members.size() || f.union_def->members[type] == nullptr)
        return fail(pos, def.name + "." + f.name + "_type " + std::to_string(type) + " is not a member of " + f.union_def->name);
      ETP_ASSIGN(uint64_t child, follow(pos + voff));
      ETP_ASSIGN(out.fields[f.id], table_value(child, *f.union_def->members[type], depth + 1));
    }
    return out;
  }

  // A table reached through an offset. Builders never point two offsets at
  // one table, but a crafted file may (a DAG). A table seen a second time
  // is decoded once more and remembered; from then on each reference
  // charges that table's whole cost again (so the budget still bounds the
  // tree as its readers will walk it, expanded) but shares the decoded
  // object instead of building it again: a DAG is refused in time
  // proportional to its file, not to its expansion.
  Result<Value> table_value(uint64_t pos, const TableDef& def, size_t depth) {
    const bool again = seen_before(pos);
    if (again) {
      auto it = shared_.find(pos);
      if (it != shared_.end() && it->second.def == &def) {
        ETP_TRY(charge(it->second.cost, pos));
        return Value::from_box(it->second.box);
      }
    }
    const uint64_t before = budget_;
    ETP_ASSIGN(TableValue t, table(pos, def, depth));
    if (!again) return Value::from_table(std::move(t));
    const uint64_t cost = before - budget_;
    TableBox box(std::move(t));
    if (shared_.find(pos) == shared_.end()) {
      ETP_TRY(charge(sizeof(SharedTable) + 2 * kAllocationOverhead, pos));  // the memo entry itself
      shared_.emplace(pos, SharedTable{&def, box, cost});
    }
    return Value::from_box(std::move(box));
  }

  // Marks the (4-aligned) table position; true when it was marked already.
  bool seen_before(uint64_t pos) {
    const uint64_t bit = pos / 4;
    if (seen_.empty()) seen_.assign(static_cast<size_t>(size_ / 4 / 64 + 1), 0);  // size_ / 32 bytes
    uint64_t& word = seen_[static_cast<size_t>(bit / 64)];
    const uint64_t mask = uint64_t{1} << (bit % 64);
    const bool was = (word & mask) != 0;
    word |= mask;
    return was;
  }

  Result<std::string> string_at(uint64_t at) {
    ETP_ASSIGN(uint64_t s, follow(at));
    if (!has(s, 4)) return fail(s, "string length past the end");
    uint64_t len = read_le<uint32_t>(buf_.data() + s);
    if (!has(s + 4, len + 1)) return fail(s, "string of " + std::to_string(len) + " bytes runs past the end");
    ETP_TRY(charge(len + kAllocationOverhead, s));
    return std::string(reinterpret_cast<const char*>(buf_.data() + s + 4), len);
  }

  Result<Value> vector_at(uint64_t at, const TableDef& def, const FieldDef& f, size_t depth) {
    ETP_ASSIGN(uint64_t v, follow(at));
    if (!has(v, 4)) return fail(v, def.name + "." + f.name + " vector length past the end");
    uint64_t count = read_le<uint32_t>(buf_.data() + v);
    size_t width = is_scalar(f.element) ? scalar_size(f.element) : 4;
    auto bytes = checked_mul(count, width);
    if (!bytes || !has(v + 4, *bytes))
      return fail(v, def.name + "." + f.name + " vector of " + std::to_string(count) + " elements runs past the end");
    if (is_scalar(f.element)) return Value::from_scalars(buf_.slice(static_cast<size_t>(v + 4), static_cast<size_t>(*bytes)));
    ETP_TRY(charge(count * sizeof(Value) + kAllocationOverhead, v));  // count < 2^32: no overflow
    Value::Items items;
    items.reserve(static_cast<size_t>(count));  // bounded: count * 4 bytes exist
    for (uint64_t i = 0; i < count; ++i) {
      uint64_t elem = v + 4 + 4 * i;
      if (f.element == BaseType::kString) {
        ETP_ASSIGN(std::string s, string_at(elem));
        items.push_back(Value::from_string(std::move(s)));
      } else {
        ETP_ASSIGN(uint64_t child, follow(elem));
        ETP_ASSIGN(Value t, table_value(child, *f.table, depth + 1));
        items.push_back(std::move(t));
      }
    }
    return Value::from_items(std::move(items));
  }

  Blob buf_;
  size_t size_;
  uint64_t base_;
  DecodeLimits limits_;
  uint64_t budget_;  // bytes left
  uint64_t total_;
  struct SharedTable {
    const TableDef* def;
    TableBox box;
    uint64_t cost;  // budget bytes its decoding took
  };
  std::vector<uint64_t> seen_;                       // one bit per 4-byte position
  std::unordered_map<uint64_t, SharedTable> shared_;  // tables reached more than once
};

}  // namespace

Result<TableValue> decode_flatbuffer(const Blob& buffer, const TableDef& root, uint64_t base_offset,
                                     const DecodeLimits& limits) {
  return Decoder(buffer, base_offset, limits).root(root);
}

}  // namespace etpack
