#include "schema/schema_load.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace etpack {
namespace {

// reflection::BaseType's numbering (flatbuffers' reflection.fbs), which the
// compact tables keep.
BaseType convert(uint8_t t) {
  switch (t) {
    case 1: return BaseType::kUType;
    case 2: return BaseType::kBool;
    case 3: return BaseType::kByte;
    case 4: return BaseType::kUByte;
    case 5: return BaseType::kShort;
    case 6: return BaseType::kUShort;
    case 7: return BaseType::kInt;
    case 8: return BaseType::kUInt;
    case 9: return BaseType::kLong;
    case 10: return BaseType::kULong;
    case 11: return BaseType::kFloat;
    case 12: return BaseType::kDouble;
    case 13: return BaseType::kString;
    case 14: return BaseType::kVector;
    case 15: return BaseType::kTable;
    case 16: return BaseType::kUnion;
    default: return BaseType::kNone;
  }
}

// A bounded cursor: after the first bad read `ok` is false and every later
// read returns 0 without moving.
struct Reader {
  const unsigned char* p;
  const unsigned char* end;
  bool ok = true;
  std::vector<std::string> pool;

  uint8_t byte() {
    if (!ok || p == end) return fail();
    return *p++;
  }
  uint64_t varint() {
    uint64_t value = 0;
    for (unsigned shift = 0; ok; shift += 7) {
      if (shift > 63) return fail();
      uint8_t b = byte();
      value |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return value;
    }
    return 0;
  }
  int64_t svarint() {
    uint64_t v = varint();
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
  }
  // A count of items that each take at least one byte.
  size_t count() {
    uint64_t n = varint();
    if (n > static_cast<uint64_t>(end - p)) return fail();
    return static_cast<size_t>(n);
  }
  // An index below `limit`.
  size_t index(size_t limit) {
    uint64_t i = varint();
    if (i >= limit) return fail();
    return static_cast<size_t>(i);
  }
  const std::string& str() {
    static const std::string kEmpty;
    size_t i = index(pool.size());
    return ok ? pool[i] : kEmpty;
  }
  double real() {
    if (!ok || end - p < 8) return fail();
    uint64_t bits = 0;
    for (int i = 7; i >= 0; --i) bits = (bits << 8) | p[i];
    p += 8;
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  uint8_t fail() {
    ok = false;
    return 0;
  }
};

}  // namespace

std::unique_ptr<Schema> load_compact_schema(const unsigned char* data, size_t size) {
  auto schema = std::make_unique<Schema>();
  Reader in{data, data + size, true, {}};
  in.pool.resize(in.count());
  for (auto& s : in.pool) {
    size_t n = in.count();
    if (!in.ok) break;
    s.assign(reinterpret_cast<const char*>(in.p), n);
    in.p += n;
  }
  std::string file_identifier = in.str();
  size_t root = static_cast<size_t>(in.varint());
  schema->unions.resize(in.count());
  std::vector<std::vector<size_t>> members(schema->unions.size());
  for (size_t i = 0; i < schema->unions.size() && in.ok; ++i) {
    UnionDef& u = schema->unions[i];
    u.name = in.str();
    bool is_union = in.byte() != 0;
    u.values.resize(in.count());
    for (auto& v : u.values) {
      v.value = in.svarint();
      v.name = in.str();
      if (!is_union) continue;
      // members[value] = table: resolved once the tables exist.
      auto value = static_cast<uint64_t>(v.value);
      if (value >= size) return std::make_unique<Schema>();
      size_t table = static_cast<size_t>(in.varint());
      if (u.members.size() <= value) u.members.resize(static_cast<size_t>(value) + 1, nullptr);
      members[i].resize(u.members.size(), 0);
      members[i][static_cast<size_t>(value)] = table;
    }
  }
  schema->tables.resize(in.count());
  for (auto& t : schema->tables) {
    const std::string& name_space = in.str();
    t.name = in.str();
    t.full_name = name_space + t.name;
    t.is_struct = in.byte() != 0;
    t.bytesize = static_cast<uint32_t>(in.varint());
    t.fields.resize(in.count());
    for (size_t id = 0; id < t.fields.size() && in.ok; ++id) {
      FieldDef& fd = t.fields[id];
      fd.name = in.str();
      fd.id = static_cast<uint16_t>(id);
      uint8_t flags = in.byte();
      uint8_t type = in.byte();
      fd.type = convert(type & 0x3f);
      fd.deprecated = (type & 0x40) != 0;
      fd.optional = (type & 0x80) != 0;
      if (flags & 1) fd.element = convert(in.byte());
      if (flags & 2) {
        int64_t index = in.svarint();
        if (index < 0 || (index >= static_cast<int64_t>(schema->tables.size()) &&
                          index >= static_cast<int64_t>(schema->unions.size())))
          return std::make_unique<Schema>();
        auto i = static_cast<size_t>(index);
        if (fd.type == BaseType::kTable || (fd.type == BaseType::kVector && fd.element == BaseType::kTable)) {
          if (i >= schema->tables.size()) return std::make_unique<Schema>();
          fd.table = &schema->tables[i];
        } else if (i >= schema->unions.size()) {
          return std::make_unique<Schema>();
        } else if (fd.type == BaseType::kUnion || fd.type == BaseType::kUType) {
          fd.union_def = &schema->unions[i];
        } else {
          fd.is_enum = true;
          fd.enum_def = &schema->unions[i];
        }
      }
      if (flags & 4) fd.default_integer = in.svarint();
      if (flags & 8) fd.default_real = in.real();
      if (flags & 16) fd.struct_offset = static_cast<uint16_t>(in.varint());
      if (flags & 32) fd.force_align = static_cast<uint32_t>(in.varint());
      if (flags & 64) fd.only_in = in.str();
    }
  }
  if (!in.ok || in.p != in.end || root > schema->tables.size()) return std::make_unique<Schema>();
  for (size_t i = 0; i < members.size(); ++i) {
    for (size_t value = 0; value < members[i].size(); ++value) {
      size_t table = members[i][value];
      if (table > schema->tables.size()) return std::make_unique<Schema>();
      if (table != 0) schema->unions[i].members[value] = &schema->tables[table - 1];
    }
  }
  if (root != 0) schema->root = &schema->tables[root - 1];
  schema->file_identifier = file_identifier;
  return schema;
}

}  // namespace etpack
