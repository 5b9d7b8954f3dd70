#include "read/etdump_reader.h"

#include <cstring>
#include <string_view>

#include "core/json.h"
#include "core/le_bytes.h"
#include "core/utf8_text.h"
#include "format/file_kinds.h"
#include "read/etdump_runs.h"
#include "read/fb_decoder.h"
#include "schema/schema.h"

namespace etpack {
namespace {

constexpr uint64_t kSizePrefix = 4;

Error malformed(const std::string& what, uint64_t offset) {
  return make_error(ErrorCode::kMalformedFile, what + " (at byte offset " + std::to_string(offset) + ")");
}

// The flatbuffer's length from the size prefix, checked against the file.
Result<uint64_t> prefixed_size(const uint8_t* data, uint64_t have, uint64_t file_size) {
  if (have < kSizePrefix || file_size < kSizePrefix)
    return malformed("file is " + std::to_string(file_size) + " bytes; an .etdp needs at least 12", 0);
  const uint64_t size = read_le<uint32_t>(data);
  if (size > file_size - kSizePrefix)
    return malformed("size prefix " + std::to_string(size) + " runs past the end of the " + std::to_string(file_size) +
                         "-byte file",
                     0);
  return size;
}

// Enum value names of the two enums the schema uses (flatc prints names).
const char* value_type_name(int64_t v) {
  static const char* const kNames[] = {"Null", "Int", "Bool", "Float", "Double", "Tensor", "TensorList", "String"};
  return v >= 0 && v < 8 ? kNames[v] : nullptr;
}
const char* scalar_type_schema_name(int64_t v) {
  switch (v) {
#define SCALAR_TYPE(name, code, runtime_name, bytes) \
  case code:                                         \
    return #name;
#include "model/scalar_types.def"
#undef SCALAR_TYPE
    default:
      return nullptr;
  }
}

void write_text(const std::string& s, std::string& out) {
  std::string valid;
  append_decoded_utf8(s, valid);  // names from the file need not be UTF-8
  write_json_string(valid, out);
}

void write_real(double v, std::string& out) { out += python_float_repr(v); }

void write_scalar_at(const Value& vec, BaseType element, size_t i, std::string& out) {
  if (is_signed_integer(element)) {
    out += std::to_string(scalar_vector_int(vec, element, i));
  } else if (element == BaseType::kFloat || element == BaseType::kDouble) {
    const Blob& raw = vec.scalars();
    if (element == BaseType::kFloat) {
      float f;
      std::memcpy(&f, raw.data() + 4 * i, 4);
      write_real(f, out);
    } else {
      double d;
      std::memcpy(&d, raw.data() + 8 * i, 8);
      write_real(d, out);
    }
  } else if (element == BaseType::kBool) {
    out += scalar_vector_uint(vec, element, i) ? "true" : "false";
  } else {
    out += std::to_string(scalar_vector_uint(vec, element, i));
  }
}

// Depth is bounded by the schema: no table of etdump.fbs contains itself.
void write_table(const TableValue& t, std::string& out) {
  out.push_back('{');
  bool first = true;
  for (const FieldDef& f : t.def->fields) {
    const Value& v = t.fields[f.id];
    if (f.type == BaseType::kUType || f.type == BaseType::kUnion) continue;  // none in etdump.fbs
    if (!is_scalar(f.type) && v.absent()) continue;
    if (!first) out.push_back(',');
    first = false;
    write_json_string(f.name, out);
    out.push_back(':');
    if (is_scalar(f.type)) {
      if (f.type == BaseType::kFloat || f.type == BaseType::kDouble) {
        write_real(v.absent() ? f.default_real : v.scalar().d, out);
      } else if (f.type == BaseType::kBool) {
        out += t.get_uint(f.name) ? "true" : "false";
      } else if (is_signed_integer(f.type)) {
        const int64_t n = t.get_int(f.name);
        const char* name = nullptr;
        if (f.is_enum) name = t.def->name == "Value" ? value_type_name(n) : scalar_type_schema_name(n);
        if (name) write_json_string(name, out); else out += std::to_string(n);
      } else {
        out += std::to_string(t.get_uint(f.name));
      }
    } else if (v.is_string()) {
      write_text(v.str(), out);
    } else if (v.is_table()) {
      write_table(v.table(), out);
    } else if (v.is_items()) {
      out.push_back('[');
      for (size_t i = 0; i < v.items().size(); ++i) {
        if (i) out.push_back(',');
        const Value& item = v.items()[i];
        if (item.is_table()) write_table(item.table(), out);
        else if (item.is_string()) write_text(item.str(), out);
        else out += "null";
      }
      out.push_back(']');
    } else if (v.is_scalars()) {
      out.push_back('[');
      const size_t n = scalar_vector_length(v, f.element);
      for (size_t i = 0; i < n; ++i) {
        if (i) out.push_back(',');
        write_scalar_at(v, f.element, i, out);
      }
      out.push_back(']');
    } else {
      out += "null";
    }
  }
  out.push_back('}');
}

// The memory read_etdump_runs may take: the decoder's budget (DecodeLimits).
uint64_t runs_budget(uint64_t size) {
  const DecodeLimits limits;
  return size * limits.memory_factor + limits.memory_allowance;  // size < 2^32 (a uint32 prefix)
}

// The file's size prefix and identifier, and the version it declares.
Result<Blob> checked_flatbuffer(const Blob& file) {
  if (file.is_external()) return make_error(ErrorCode::kInvalidArgument, "an .etdp is read from bytes in memory");
  const uint8_t* data = file.data();
  ETP_ASSIGN(uint64_t size, prefixed_size(data, file.size(), file.size()));
  ETP_TRY(check_identifier(FileKind::kEtdp, data, static_cast<size_t>(file.size()), file.size()));
  return file.slice(kSizePrefix, size);  // offsets in messages count from byte kSizePrefix
}

Status check_version(const Blob& buffer) {
  ETP_ASSIGN(EtdumpVersion version, etdump_version(buffer, kSizePrefix));
  if (version.value != 0)
    return make_error(ErrorCode::kUnsupportedVersion, "ETDump version " + std::to_string(version.value) +
                                                          " is not the supported 0 (at byte offset " +
                                                          std::to_string(version.offset) + ")");
  return {};
}

}  // namespace

Result<uint64_t> etdump_head_size(const Blob& probe, uint64_t file_size) {
  ETP_ASSIGN(uint64_t size, prefixed_size(probe.data(), probe.size(), file_size));
  return kSizePrefix + size;
}

Result<EtdumpFile> read_etdump(const Blob& file) {
  ETP_ASSIGN(Blob buffer, checked_flatbuffer(file));
  // The decoder reads the flatbuffer in place (a slice: no copy); its
  // messages name offsets in the file (base kSizePrefix).
  ETP_ASSIGN(TableValue root, decode_flatbuffer(buffer, *etdump_schema().root, kSizePrefix));
  ETP_TRY(check_version(buffer));
  ETP_ASSIGN(std::vector<EtdumpBlock> blocks, etdump_runs(buffer, kSizePrefix, runs_budget(buffer.size())));
  return EtdumpFile{std::move(root), std::move(blocks), file};
}

Result<EtdumpFile> read_etdump_runs(const Blob& file) {
  ETP_ASSIGN(Blob buffer, checked_flatbuffer(file));
  ETP_TRY(check_version(buffer));
  ETP_ASSIGN(std::vector<EtdumpBlock> blocks, etdump_runs(buffer, kSizePrefix, runs_budget(buffer.size())));
  return EtdumpFile{TableValue(etdump_schema().root), std::move(blocks), file};
}

std::string etdump_json(const EtdumpFile& file) {
  std::string out;
  write_table(file.root, out);
  return out;
}

}  // namespace etpack
