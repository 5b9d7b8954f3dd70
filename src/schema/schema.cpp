#include "schema/schema.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "flatbuffers/reflection_generated.h"
#include "schema/verify.h"

// Embedded by CMake from the flatc-compiled .bfbs files (see CMakeLists.txt).
extern "C" const unsigned char etpack_program_bfbs[];
extern "C" const size_t etpack_program_bfbs_size;
extern "C" const unsigned char etpack_flat_tensor_bfbs[];
extern "C" const size_t etpack_flat_tensor_bfbs_size;
extern "C" const unsigned char etpack_etdump_bfbs[];
extern "C" const size_t etpack_etdump_bfbs_size;
extern "C" const unsigned char etpack_bundled_program_bfbs[];
extern "C" const size_t etpack_bundled_program_bfbs_size;
extern "C" const unsigned char etpack_xnnpack_bfbs[];
extern "C" const size_t etpack_xnnpack_bfbs_size;
extern "C" const unsigned char etpack_vulkan_bfbs[];
extern "C" const size_t etpack_vulkan_bfbs_size;
extern "C" const unsigned char etpack_mps_bfbs[];
extern "C" const size_t etpack_mps_bfbs_size;
extern "C" const unsigned char etpack_mlx_bfbs[];
extern "C" const size_t etpack_mlx_bfbs_size;
extern "C" const unsigned char etpack_native_graph_bfbs[];
extern "C" const size_t etpack_native_graph_bfbs_size;

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

BaseType convert(reflection::BaseType t) {
  switch (t) {
    case reflection::UType: return BaseType::kUType;
    case reflection::Bool: return BaseType::kBool;
    case reflection::Byte: return BaseType::kByte;
    case reflection::UByte: return BaseType::kUByte;
    case reflection::Short: return BaseType::kShort;
    case reflection::UShort: return BaseType::kUShort;
    case reflection::Int: return BaseType::kInt;
    case reflection::UInt: return BaseType::kUInt;
    case reflection::Long: return BaseType::kLong;
    case reflection::ULong: return BaseType::kULong;
    case reflection::Float: return BaseType::kFloat;
    case reflection::Double: return BaseType::kDouble;
    case reflection::String: return BaseType::kString;
    case reflection::Vector: return BaseType::kVector;
    case reflection::Obj: return BaseType::kTable;
    case reflection::Union: return BaseType::kUnion;
    default: return BaseType::kNone;
  }
}

std::string short_name(const std::string& full) {
  size_t dot = full.rfind('.');
  return dot == std::string::npos ? full : full.substr(dot + 1);
}

// The schemas are our own build products, so a malformed one is a build bug:
// it leaves the Schema empty and every use fails with a schema error.
std::unique_ptr<Schema> load(const unsigned char* data, size_t size) {
  auto schema = std::make_unique<Schema>();
  if (!flatbuffer_verifies(VerifiedRoot::kReflectionSchema, data, size)) return schema;
  const reflection::Schema* rs = reflection::GetSchema(data);
  const auto* objects = rs->objects();
  const auto* enums = rs->enums();
  schema->tables.resize(objects->size());
  schema->unions.resize(enums->size());
  for (flatbuffers::uoffset_t i = 0; i < enums->size(); ++i) {
    const auto* e = enums->Get(i);
    UnionDef& u = schema->unions[i];
    u.name = short_name(e->name()->str());
    for (const auto* v : *e->values()) u.values.push_back({v->value(), v->name()->str()});
    if (!e->is_union()) continue;
    for (const auto* v : *e->values()) {
      auto value = static_cast<size_t>(v->value());
      if (u.members.size() <= value) u.members.resize(value + 1, nullptr);
      if (v->union_type() != nullptr && v->union_type()->base_type() == reflection::Obj)
        u.members[value] = &schema->tables[static_cast<size_t>(v->union_type()->index())];
    }
  }
  for (flatbuffers::uoffset_t i = 0; i < objects->size(); ++i) {
    const auto* o = objects->Get(i);
    TableDef& t = schema->tables[i];
    t.full_name = o->name()->str();
    t.name = short_name(t.full_name);
    t.is_struct = o->is_struct();
    t.bytesize = o->bytesize() > 0 ? static_cast<uint32_t>(o->bytesize()) : 0;
    t.fields.resize(o->fields()->size());
    for (const auto* f : *o->fields()) {
      FieldDef& fd = t.fields.at(f->id());
      fd.name = f->name()->str();
      fd.id = f->id();
      fd.type = convert(f->type()->base_type());
      fd.element = convert(f->type()->element());
      fd.default_integer = f->default_integer();
      fd.default_real = f->default_real();
      int index = f->type()->index();
      if (index >= 0) {
        if (fd.type == BaseType::kTable || (fd.type == BaseType::kVector && fd.element == BaseType::kTable)) {
          fd.table = &schema->tables[static_cast<size_t>(index)];
        } else if (fd.type == BaseType::kUnion || fd.type == BaseType::kUType) {
          fd.union_def = &schema->unions[static_cast<size_t>(index)];
        } else {
          fd.is_enum = true;
          fd.enum_def = &schema->unions[static_cast<size_t>(index)];
        }
      }
      fd.deprecated = f->deprecated();
      fd.optional = f->optional();
      if (t.is_struct) fd.struct_offset = f->offset();
      if (f->attributes() != nullptr) {
        for (const auto* kv : *f->attributes()) {
          if (kv->key()->str() == "force_align") fd.force_align = static_cast<uint32_t>(std::stoul(kv->value()->str()));
          if (kv->key()->str() == "only_in" && kv->value() != nullptr) fd.only_in = kv->value()->str();
        }
      }
    }
  }
  if (rs->root_table() != nullptr) {
    std::string root = rs->root_table()->name()->str();
    for (auto& t : schema->tables)
      if (t.full_name == root) schema->root = &t;
  }
  if (rs->file_ident() != nullptr) schema->file_identifier = rs->file_ident()->str();
  return schema;
}

}  // namespace

const Schema& program_schema() {
  static const std::unique_ptr<Schema> schema = load(etpack_program_bfbs, etpack_program_bfbs_size);
  return *schema;
}

const Schema& flat_tensor_schema() {
  static const std::unique_ptr<Schema> schema = load(etpack_flat_tensor_bfbs, etpack_flat_tensor_bfbs_size);
  return *schema;
}

const Schema& bundled_program_schema() {
  static const std::unique_ptr<Schema> schema = load(etpack_bundled_program_bfbs, etpack_bundled_program_bfbs_size);
  return *schema;
}

const Schema& etdump_schema() {
  static const std::unique_ptr<Schema> schema = load(etpack_etdump_bfbs, etpack_etdump_bfbs_size);
  return *schema;
}

const Schema& delegate_schema(DelegateSchema which) {
  static const std::unique_ptr<Schema> xnnpack = load(etpack_xnnpack_bfbs, etpack_xnnpack_bfbs_size);
  static const std::unique_ptr<Schema> vulkan = load(etpack_vulkan_bfbs, etpack_vulkan_bfbs_size);
  static const std::unique_ptr<Schema> mps = load(etpack_mps_bfbs, etpack_mps_bfbs_size);
  static const std::unique_ptr<Schema> mlx = load(etpack_mlx_bfbs, etpack_mlx_bfbs_size);
  static const std::unique_ptr<Schema> native = load(etpack_native_graph_bfbs, etpack_native_graph_bfbs_size);
  switch (which) {
    case DelegateSchema::kXnnpack: return *xnnpack;
    case DelegateSchema::kVulkan: return *vulkan;
    case DelegateSchema::kMps: return *mps;
    case DelegateSchema::kMlx: return *mlx;
    case DelegateSchema::kNative: return *native;
  }
  return *xnnpack;
}

}  // namespace etpack
