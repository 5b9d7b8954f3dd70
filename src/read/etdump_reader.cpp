#include "read/etdump_reader.h"

#include <cstring>
#include <string_view>

#include "core/json.h"
#include "core/le_bytes.h"
#include "core/utf8_text.h"
#include "format/file_kinds.h"
#include "read/fb_bytes.h"
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

int32_t int32_of(const TableValue& t, const char* name) { return static_cast<int32_t>(t.get_int(name)); }

EtdumpProfileEvent profile_event(const TableValue& p, size_t index) {
  EtdumpProfileEvent e;
  e.event_index = index;
  if (p.get("name").is_string()) e.name = p.get("name").str();
  e.chain_index = int32_of(p, "chain_index");
  e.instruction_id = int32_of(p, "instruction_id");
  e.delegate_debug_id_int = int32_of(p, "delegate_debug_id_int");
  if (p.get("delegate_debug_id_str").is_string()) e.delegate_debug_id_str = p.get("delegate_debug_id_str").str();
  if (p.get("delegate_debug_metadata").is_scalars()) e.delegate_debug_metadata = p.get("delegate_debug_metadata").scalars();
  e.start_time = p.get_uint("start_time");
  e.end_time = p.get_uint("end_time");
  return e;
}

// Where the root's version field lies in the file (the decoder has
// already checked every step of the way, so these reads succeed).
uint64_t version_offset(const Blob& buffer) {
  const FbBytes bytes(buffer.data(), buffer.size(), kSizePrefix);
  const TableDef& root = *etdump_schema().root;
  auto pos = bytes.follow(0);
  if (!pos.ok()) return kSizePrefix;
  auto table = bytes.table(*pos, root);
  if (!table.ok()) return kSizePrefix + *pos;
  auto at = bytes.field(*table, root, *root.find("version"));
  return kSizePrefix + (at.ok() && *at != 0 ? *at : *pos);
}

}  // namespace

Result<uint64_t> etdump_head_size(const Blob& probe, uint64_t file_size) {
  ETP_ASSIGN(uint64_t size, prefixed_size(probe.data(), probe.size(), file_size));
  return kSizePrefix + size;
}

Result<EtdumpFile> read_etdump(const Blob& file) {
  if (file.is_external()) return make_error(ErrorCode::kInvalidArgument, "an .etdp is read from bytes in memory");
  const uint8_t* data = file.data();
  ETP_ASSIGN(uint64_t size, prefixed_size(data, file.size(), file.size()));
  ETP_TRY(check_identifier(FileKind::kEtdp, data, static_cast<size_t>(file.size()), file.size()));
  // The decoder reads the flatbuffer in place (a slice: no copy); its
  // messages name offsets in the file (base kSizePrefix).
  const Blob buffer = file.slice(kSizePrefix, size);
  ETP_ASSIGN(TableValue root, decode_flatbuffer(buffer, *etdump_schema().root, kSizePrefix));
  EtdumpFile out{std::move(root), {}};
  if (const uint64_t version = out.root.get_uint("version"); version != 0)
    return make_error(ErrorCode::kUnsupportedVersion, "ETDump version " + std::to_string(version) +
                                                          " is not the supported 0 (at byte offset " +
                                                          std::to_string(version_offset(buffer)) + ")");
  const Value& runs = out.root.get("run_data");
  if (!runs.is_items()) return out;
  out.blocks.reserve(runs.items().size());  // bounded: tables the decoder built
  for (const Value& run : runs.items()) {
    EtdumpBlock block;
    if (!run.is_table()) continue;
    const TableValue& r = run.table();
    if (r.get("name").is_string()) block.name = r.get("name").str();
    block.bundled_input_index = int32_of(r, "bundled_input_index");
    const Value& events = r.get("events");
    if (events.is_items()) {
      block.event_count = events.items().size();
      for (size_t i = 0; i < events.items().size(); ++i) {
        const Value& event = events.items()[i];
        if (!event.is_table()) continue;
        const Value& p = event.table().get("profile_event");
        if (p.is_table()) block.profile.push_back(profile_event(p.table(), i));
      }
    }
    out.blocks.push_back(std::move(block));
  }
  return out;
}

std::string etdump_json(const EtdumpFile& file) {
  std::string out;
  write_table(file.root, out);
  return out;
}

}  // namespace etpack
