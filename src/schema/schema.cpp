#include "schema/schema.h"

#include <memory>

#include "schema/schema_load.h"

// Embedded by CMake: the compact tables (cmake/compact_schema.mjs) of the
// flatc-compiled .bfbs files (see CMakeLists.txt), as
// etpack_<name>_schema[] and etpack_<name>_schema_size.
#define ETPACK_EMBEDDED_SCHEMAS(X) \
  X(program) X(flat_tensor) X(etdump) X(bundled_program) X(xnnpack) X(vulkan) X(mps) X(mlx) X(native_graph)
#define ETPACK_DECLARE_EMBEDDED(name)                    \
  extern "C" const unsigned char etpack_##name##_schema[]; \
  extern "C" const size_t etpack_##name##_schema_size;
ETPACK_EMBEDDED_SCHEMAS(ETPACK_DECLARE_EMBEDDED)
#undef ETPACK_DECLARE_EMBEDDED
#undef ETPACK_EMBEDDED_SCHEMAS

namespace etpack {

bool is_scalar(BaseType t) { return t >= BaseType::kUType && t <= BaseType::kDouble; }
bool is_signed_integer(BaseType t) {
  return t == BaseType::kByte || t == BaseType::kShort || t == BaseType::kInt || t == BaseType::kLong;
}
bool is_unsigned_integer(BaseType t) {
  return t == BaseType::kUType || t == BaseType::kBool || t == BaseType::kUByte || t == BaseType::kUShort ||
         t == BaseType::kUInt || t == BaseType::kULong;
}
size_t scalar_size(BaseType t) {
  switch (t) {
    case BaseType::kUType: case BaseType::kBool: case BaseType::kByte: case BaseType::kUByte: return 1;
    case BaseType::kShort: case BaseType::kUShort: return 2;
    case BaseType::kInt: case BaseType::kUInt: case BaseType::kFloat: return 4;
    case BaseType::kLong: case BaseType::kULong: case BaseType::kDouble: return 8;
    default: return 0;
  }
}
const char* base_type_name(BaseType t) {
  static const char* kNames[] = {"none", "utype", "bool", "byte", "ubyte", "short", "ushort", "int",
                                 "uint", "long", "ulong", "float", "double", "string", "vector", "table", "union"};
  return kNames[static_cast<size_t>(t)];
}

const FieldDef* TableDef::find(std::string_view field_name) const {
  for (const auto& f : fields)
    if (f.name == field_name) return &f;
  return nullptr;
}

int UnionDef::type_of(std::string_view table_name) const {
  for (size_t i = 0; i < members.size(); ++i)
    if (members[i] != nullptr && members[i]->name == table_name) return static_cast<int>(i);
  return -1;
}

const char* UnionDef::name_of(int64_t value) const {
  for (const auto& v : values)
    if (v.value == value) return v.name.c_str();
  return nullptr;
}

const TableDef* Schema::find_table(std::string_view short_name) const {
  for (const auto& t : tables)
    if (t.name == short_name) return &t;
  return nullptr;
}

namespace {

// Each schema is read from its table on first use (a delegate's only when a
// payload of its kind is met) and kept for the process.
template <const unsigned char* kTable, const size_t* kSize>
const Schema& embedded() {
  static const std::unique_ptr<Schema> schema = load_compact_schema(kTable, *kSize);
  return *schema;
}

}  // namespace

const Schema& program_schema() { return embedded<etpack_program_schema, &etpack_program_schema_size>(); }
const Schema& flat_tensor_schema() { return embedded<etpack_flat_tensor_schema, &etpack_flat_tensor_schema_size>(); }
const Schema& etdump_schema() { return embedded<etpack_etdump_schema, &etpack_etdump_schema_size>(); }
const Schema& bundled_program_schema() {
  return embedded<etpack_bundled_program_schema, &etpack_bundled_program_schema_size>();
}

const Schema& delegate_schema(DelegateSchema which) {
  switch (which) {
    case DelegateSchema::kXnnpack: return embedded<etpack_xnnpack_schema, &etpack_xnnpack_schema_size>();
    case DelegateSchema::kVulkan: return embedded<etpack_vulkan_schema, &etpack_vulkan_schema_size>();
    case DelegateSchema::kMps: return embedded<etpack_mps_schema, &etpack_mps_schema_size>();
    case DelegateSchema::kMlx: return embedded<etpack_mlx_schema, &etpack_mlx_schema_size>();
    case DelegateSchema::kNative: return embedded<etpack_native_graph_schema, &etpack_native_graph_schema_size>();
  }
  return embedded<etpack_xnnpack_schema, &etpack_xnnpack_schema_size>();
}

}  // namespace etpack
