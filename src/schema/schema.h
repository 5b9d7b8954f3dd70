// The two wire schemas (Program/ET12 and FlatTensor/FT01) as plain data,
// loaded once from the .bfbs files that flatc compiles from src/schema/*.fbs
// (embedded as compact tables: schema_load.h).
// One generic codec (JSON, encoder, decoder) walks these definitions, so no
// table has hand-written serialization code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace etpack {

enum class BaseType : uint8_t {
  kNone, kUType, kBool, kByte, kUByte, kShort, kUShort, kInt, kUInt, kLong, kULong,
  kFloat, kDouble, kString, kVector, kTable, kUnion,
};

bool is_scalar(BaseType t);
bool is_signed_integer(BaseType t);
bool is_unsigned_integer(BaseType t);  // includes kBool and kUType
size_t scalar_size(BaseType t);        // 0 for non-scalars
const char* base_type_name(BaseType t);

struct TableDef;
struct UnionDef;

struct FieldDef {
  std::string name;
  uint16_t id = 0;                 // declaration order; vtable slot
  BaseType type = BaseType::kNone;
  BaseType element = BaseType::kNone;  // for vectors
  const TableDef* table = nullptr;     // kTable, or vector of tables
  const UnionDef* union_def = nullptr; // kUnion and its kUType companion
  int64_t default_integer = 0;
  double default_real = 0;
  uint32_t force_align = 0;        // declared force_align of a vector, else 0
  bool is_enum = false;            // integer field typed by an enum
  const UnionDef* enum_def = nullptr;  // that enum (also for a vector of enums)
  bool deprecated = false;         // declared (deprecated): never printed
  bool optional = false;           // a scalar declared `= null`: absent is not its default
  uint16_t struct_offset = 0;      // a field of a struct: its byte offset in the struct
  // Declared (only_in: "ID"): a field printed only when decoding a buffer
  // whose identifier is ID (delegate schemas shared by two identifiers).
  std::string only_in;
};

struct TableDef {
  std::string name;       // short name, e.g. "Tensor"
  std::string full_name;  // e.g. "executorch_flatbuffer.Tensor"
  // A struct (fixed-size, stored inline; only the delegate schemas have
  // them): `bytesize` bytes, each field at its struct_offset.
  bool is_struct = false;
  uint32_t bytesize = 0;
  std::vector<FieldDef> fields;  // indexed by id
  const FieldDef* find(std::string_view field_name) const;
  // The same, trying fields[hint] first (readers pass the field after the
  // last one found: keys mostly come in declaration order).
  const FieldDef* find(std::string_view field_name, size_t hint) const {
    if (hint < fields.size() && fields[hint].name == field_name) return &fields[hint];
    return find(field_name);
  }
};

// An enum or a union (reflection keeps both in one list).
struct UnionDef {
  std::string name;
  // members[type_value] = table (nullptr for NONE / unused values)
  std::vector<const TableDef*> members;
  int type_of(std::string_view table_name) const;  // -1 when unknown
  // Every declared value with its name (a union's are its member names,
  // e.g. "XNNAdd" for a member whose table is _XNNNode2x1).
  struct Named {
    int64_t value;
    std::string name;
  };
  std::vector<Named> values;
  const char* name_of(int64_t value) const;  // nullptr when unnamed
};

struct Schema {
  std::vector<TableDef> tables;
  std::vector<UnionDef> unions;
  const TableDef* root = nullptr;
  std::string file_identifier;
  const TableDef* find_table(std::string_view short_name) const;
};

// Parsed once, then immutable; safe to share.
const Schema& program_schema();
const Schema& flat_tensor_schema();
const Schema& bundled_program_schema();  // BundledProgram (.bpte)
const Schema& etdump_schema();  // ETDump/ED00 (read only)

// The delegate payload schemas (read only; src/schema/<name>.fbs, listed in
// format/payload_kinds.def).
enum class DelegateSchema { kXnnpack, kVulkan, kMps, kMlx, kNative };
const Schema& delegate_schema(DelegateSchema which);

}  // namespace etpack
