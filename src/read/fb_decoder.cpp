#include "read/fb_decoder.h"

#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "core/checked_math.h"
#include "core/le_bytes.h"
#include "read/fb_bytes.h"

namespace etpack {
namespace {

class Decoder {
 public:
  Decoder(const Blob& buffer, uint64_t base, const DecodeLimits& limits)
      : buf_(buffer), bytes_(buffer.data(), buffer.size(), base), size_(buffer.size()), base_(base), limits_(limits) {
    auto scaled = checked_mul(static_cast<uint64_t>(size_), limits.memory_factor);
    budget_ = scaled ? *scaled + limits.memory_allowance : UINT64_MAX;
    total_ = budget_;
  }

  Result<TableValue> root(const TableDef& def) {
    if (size_ < 8) return bytes_.fail(0, "flatbuffer is " + std::to_string(size_) + " bytes, smaller than its 8-byte preamble");
    ETP_ASSIGN(uint64_t table_pos, bytes_.follow(0));
    return table(table_pos, def, 0);
  }

 private:
  // Heap bytes one allocation costs beyond what it holds (allocator header,
  // shared_ptr control block), charged so that many tiny objects count.
  static constexpr uint64_t kAllocationOverhead = 32;
  static uint64_t table_cost(const TableDef& def) {
    return sizeof(TableValue) + def.fields.size() * sizeof(Value) + 2 * kAllocationOverhead;
  }

  Error refuse(uint64_t at) const {
    return make_error(ErrorCode::kResourceLimit,
                      "the flatbuffer would decode to more than " + std::to_string(total_ >> 20) + " MiB (" +
                          std::to_string(limits_.memory_factor) + " x its " + std::to_string(size_) + " bytes + " +
                          std::to_string(limits_.memory_allowance >> 20) +
                          " MiB): its offsets reach the same tables or vectors from many places; memory budget "
                          "exceeded at byte offset " + std::to_string(base_ + at));
  }

  // Charges `bytes` of model memory before they are allocated.
  Status charge(uint64_t bytes, uint64_t at) {
    if (bytes > budget_) return refuse(at);
    budget_ -= bytes;
    return {};
  }

  Result<TableValue> table(uint64_t pos, const TableDef& def, size_t depth) {
    if (depth > limits_.max_depth)
      return make_error(ErrorCode::kLimitExceeded, "flatbuffer nesting deeper than " + std::to_string(limits_.max_depth) +
                                                       " at byte offset " + std::to_string(base_ + pos));
    ETP_TRY(charge(table_cost(def), pos));
    ETP_ASSIGN(FbTable t, bytes_.table(pos, def));

    TableValue out(&def);
    for (const FieldDef& f : def.fields) {
      if (f.type == BaseType::kUnion) continue;  // after the loop, once its type is known
      ETP_ASSIGN(uint64_t at, bytes_.field(t, def, f));
      if (at == 0) continue;
      const uint8_t* p = buf_.data() + at;
      switch (f.type) {
        case BaseType::kString: {
          ETP_ASSIGN(std::string s, string_at(at));
          out.fields[f.id] = Value::from_string(std::move(s));
          break;
        }
        case BaseType::kTable: {
          if (f.table->is_struct) {  // inline: field() checked its bytesize fits
            ETP_TRY(charge(table_cost(*f.table), at));
            out.fields[f.id] = Value::from_table(struct_at(at, *f.table));
            break;
          }
          ETP_ASSIGN(uint64_t child, bytes_.follow(at));
          ETP_ASSIGN(out.fields[f.id], table_value(child, *f.table, depth + 1));
          break;
        }
        case BaseType::kVector: {
          ETP_ASSIGN(Value v, vector_at(at, def, f, depth));
          out.fields[f.id] = std::move(v);
          break;
        }
        default:
          out.fields[f.id] = scalar_value(p, f.type);
      }
    }
    // Unions: the value's table type comes from the companion _type field.
    for (const FieldDef& f : def.fields) {
      if (f.type != BaseType::kUnion) continue;
      ETP_ASSIGN(uint64_t at, bytes_.field(t, def, f));
      uint64_t type = out.fields[f.id - 1u].is_scalar() ? out.fields[f.id - 1u].scalar().u : 0;
      if (at == 0 || type == 0) {
        out.fields[f.id - 1u] = Value();
        continue;
      }
      if (type >= f.union_def->members.size() || f.union_def->members[type] == nullptr)
        return bytes_.fail(pos, def.name + "." + f.name + "_type " + std::to_string(type) + " is not a member of " + f.union_def->name);
      ETP_ASSIGN(uint64_t child, bytes_.follow(at));
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

  // The scalar of type `type` at `p` (bounds checked by the caller).
  static Value scalar_value(const uint8_t* p, BaseType type) {
    if (type == BaseType::kDouble) {
      const uint64_t bits = read_le<uint64_t>(p);
      double d;
      std::memcpy(&d, &bits, 8);
      return Value::from_double(d);
    }
    if (type == BaseType::kFloat) {
      const uint32_t bits = read_le<uint32_t>(p);
      float fl;
      std::memcpy(&fl, &bits, 4);
      return Value::from_double(fl);
    }
    const size_t width = scalar_size(type);
    if (is_signed_integer(type)) {
      switch (width) {
        case 1: return Value::from_int(static_cast<int8_t>(p[0]));
        case 2: return Value::from_int(static_cast<int16_t>(read_le<uint16_t>(p)));
        case 4: return Value::from_int(static_cast<int32_t>(read_le<uint32_t>(p)));
        default: return Value::from_int(static_cast<int64_t>(read_le<uint64_t>(p)));
      }
    }
    switch (width) {
      case 1: return Value::from_uint(p[0]);
      case 2: return Value::from_uint(read_le<uint16_t>(p));
      case 4: return Value::from_uint(read_le<uint32_t>(p));
      default: return Value::from_uint(read_le<uint64_t>(p));
    }
  }

  // A struct stored inline at `at` (its `bytesize` bytes are in bounds:
  // field() / vector() checked them). Structs cannot contain themselves, so
  // the recursion is bounded by the schema.
  TableValue struct_at(uint64_t at, const TableDef& def) {
    TableValue out(&def);
    for (const FieldDef& f : def.fields) {
      const uint64_t p = at + f.struct_offset;
      if (f.type == BaseType::kTable && f.table != nullptr && f.table->is_struct) {
        if (f.struct_offset + uint64_t{f.table->bytesize} <= def.bytesize) out.fields[f.id] = Value::from_table(struct_at(p, *f.table));
      } else if (is_scalar(f.type) && f.struct_offset + scalar_size(f.type) <= def.bytesize) {
        out.fields[f.id] = scalar_value(buf_.data() + p, f.type);
      }
    }
    return out;
  }

  Result<std::string> string_at(uint64_t at) {
    ETP_ASSIGN(std::string_view s, bytes_.string(at));
    ETP_TRY(charge(s.size() + kAllocationOverhead, at));
    return std::string(s);
  }

  Result<Value> vector_at(uint64_t at, const TableDef& def, const FieldDef& f, size_t depth) {
    ETP_ASSIGN(FbVector vec, bytes_.vector(at, def, f));
    const uint64_t v = vec.first - 4;
    if (is_scalar(f.element)) return Value::from_scalars(buf_.slice(static_cast<size_t>(vec.first), static_cast<size_t>(vec.count * vec.width)));
    const uint64_t count = vec.count;
    ETP_TRY(charge(count * sizeof(Value) + kAllocationOverhead, v));  // count < 2^32: no overflow
    // Each element will charge at least this much more (a string its
    // allocation, a table its own cost, shared or not), so a vector whose
    // elements cannot all fit is refused here, before its slots exist: a
    // DAG's 16M-element vector costs no memory to refuse.
    const uint64_t least = f.element == BaseType::kString ? kAllocationOverhead : table_cost(*f.table);
    if (count * least > budget_) return refuse(v);
    Value::Items items;
    items.reserve(static_cast<size_t>(count));  // bounded: count * 4 bytes exist, and the budget covers them
    for (uint64_t i = 0; i < count; ++i) {
      uint64_t elem = vec.first + 4 * i;
      if (f.element == BaseType::kString) {
        ETP_ASSIGN(std::string s, string_at(elem));
        items.push_back(Value::from_string(std::move(s)));
      } else if (f.table->is_struct) {  // inline elements: vector() checked they fit
        items.push_back(Value::from_table(struct_at(vec.first + vec.width * i, *f.table)));
        ETP_TRY(charge(table_cost(*f.table), vec.first + vec.width * i));
      } else {
        ETP_ASSIGN(uint64_t child, bytes_.follow(elem));
        ETP_ASSIGN(Value t, table_value(child, *f.table, depth + 1));
        items.push_back(std::move(t));
      }
    }
    return Value::from_items(std::move(items));
  }

  Blob buf_;
  FbBytes bytes_;
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
