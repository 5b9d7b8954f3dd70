#include "model/value_json.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "core/le_bytes.h"
#include "core/nan_bits.h"

namespace etpack {

Scalar get_scalar(const uint8_t* p, BaseType type) {
  Scalar s;
  s.u = 0;
  switch (type) {
    case BaseType::kFloat: {
      uint32_t bits = read_le<uint32_t>(p);
      float f;
      std::memcpy(&f, &bits, 4);
      s.d = f;
      return s;
    }
    case BaseType::kDouble: {
      uint64_t bits = read_le<uint64_t>(p);
      std::memcpy(&s.d, &bits, 8);
      return s;
    }
    case BaseType::kByte: s.i = static_cast<int8_t>(p[0]); return s;
    case BaseType::kShort: s.i = static_cast<int16_t>(read_le<uint16_t>(p)); return s;
    case BaseType::kInt: s.i = static_cast<int32_t>(read_le<uint32_t>(p)); return s;
    case BaseType::kLong: s.i = static_cast<int64_t>(read_le<uint64_t>(p)); return s;
    default:
      switch (scalar_size(type)) {
        case 1: s.u = p[0]; break;
        case 2: s.u = read_le<uint16_t>(p); break;
        case 4: s.u = read_le<uint32_t>(p); break;
        default: s.u = read_le<uint64_t>(p);
      }
      return s;
  }
}

const uint8_t* scalar_vector_bytes(const Blob& raw, std::vector<uint8_t>& fetched, size_t& size) {
  if (!raw.is_external()) {
    size = static_cast<size_t>(raw.size());
    return raw.data();
  }
  fetched.resize(static_cast<size_t>(raw.size()));
  if (!raw.read_into(fetched.data())) fetched.clear();
  size = fetched.size();
  return fetched.data();
}

namespace {

constexpr int64_t kMaxSafeInteger = (int64_t{1} << 53) - 1;

Json scalar_to_json(Scalar s, BaseType type, bool in_vector, const ToJsonOptions& options) {
  switch (type) {
    case BaseType::kBool: return Json::boolean(s.u != 0);
    case BaseType::kFloat:
    case BaseType::kDouble:
      // Upstream's Double dataclass keeps infinities as "inf"/"-inf" strings;
      // floats inside lists are written by json.dumps as bare tokens.
      if (!in_vector && std::isinf(s.d)) return Json::string(s.d > 0 ? "inf" : "-inf");
      // For a JavaScript host a NaN keeps its bits (core/nan_bits.h).
      if (options.js_bigint_markers)
        if (auto hex = noncanonical_nan_hex(s.d)) return Json::string(std::string("\0B", 2) + *hex);
      return Json::real(s.d);
    default:
      if (options.js_bigint_markers) {
        bool unsafe = is_signed_integer(type) ? (s.i > kMaxSafeInteger || s.i < -kMaxSafeInteger)
                                              : s.u > static_cast<uint64_t>(kMaxSafeInteger);
        if (unsafe) return Json::string(std::string(1, '\0') + (is_signed_integer(type) ? std::to_string(s.i) : std::to_string(s.u)));
      }
      return is_signed_integer(type) ? Json::integer(s.i) : Json::unsigned_integer(s.u);
  }
}

Json string_to_json(const std::string& s, const ToJsonOptions& options) {
  if (options.js_bigint_markers && !s.empty() && s[0] == '\0') return Json::string(std::string(1, '\0') + s);
  return Json::string(s);
}

}  // namespace

// The order upstream's _program_to_json writes a table's fields in: that of
// the exir/schema.py dataclass, which json.dumps follows. It is the
// flatbuffer schema's order except where listed here (fields not listed
// keep their schema order, after the listed ones).
const std::vector<const FieldDef*>& json_field_order(const TableDef& def) {
  struct Override {
    const char* table;
    std::vector<const char*> fields;
  };
  static const Override kDataclassOrder[] = {
      // Tensor: `layout` comes before `data_buffer_idx` in the dataclass.
      {"Tensor", {"scalar_type", "storage_offset", "sizes", "dim_order", "requires_grad", "layout", "data_buffer_idx",
                  "allocation_info", "shape_dynamism", "extra_tensor_info"}},
  };
  // Element references stay valid as the map grows (the recursion holds them).
  static thread_local std::unordered_map<const TableDef*, std::vector<const FieldDef*>> cache;
  if (auto it = cache.find(&def); it != cache.end()) return it->second;
  std::vector<const FieldDef*> order;
  for (const Override& o : kDataclassOrder) {
    if (def.name != o.table) continue;
    for (const char* name : o.fields)
      for (const FieldDef& f : def.fields)
        if (f.name == name) order.push_back(&f);
  }
  for (const FieldDef& f : def.fields)
    if (std::find(order.begin(), order.end(), &f) == order.end()) order.push_back(&f);
  return cache.emplace(&def, std::move(order)).first->second;
}

Json table_to_json(const TableValue& table, const ToJsonOptions& options) {
  Json out = Json::object();
  for (const FieldDef* field : json_field_order(*table.def)) {
    const FieldDef& f = *field;
    const Value& v = table.fields[f.id];
    switch (f.type) {
      case BaseType::kUType: break;  // written after its union value
      case BaseType::kUnion: {
        if (v.is_table()) {
          out.set(f.name, table_to_json(v.table(), options));
          out.set(f.name + "_type", Json::string(v.table().def->name));
        } else {
          out.set(f.name, Json::null());
          out.set(f.name + "_type", Json::null());
        }
        break;
      }
      case BaseType::kString: out.set(f.name, v.is_string() ? string_to_json(v.str(), options) : Json::null()); break;
      case BaseType::kTable: out.set(f.name, v.is_table() ? table_to_json(v.table(), options) : Json::null()); break;
      case BaseType::kVector: {
        if (v.absent()) {
          out.set(f.name, Json::null());
          break;
        }
        if (v.is_scalars() && f.element == BaseType::kUByte && options.byte_vector) {
          if (std::optional<Json> reference = options.byte_vector(f, v.scalars())) {
            out.set(f.name, std::move(*reference));
            break;
          }
        }
        Json list = Json::array();
        if (v.is_items()) {
          for (const Value& item : v.items())
            list.push(item.is_table() ? table_to_json(item.table(), options)
                                      : string_to_json(item.is_string() ? item.str() : "", options));
        } else {
          size_t width = scalar_size(f.element);
          std::vector<uint8_t> fetched;
          size_t size = 0;
          const uint8_t* data = scalar_vector_bytes(v.scalars(), fetched, size);
          list.items().reserve(size / width);
          for (size_t i = 0; i + width <= size; i += width)
            list.push(scalar_to_json(get_scalar(data + i, f.element), f.element, true, options));
        }
        out.set(f.name, std::move(list));
        break;
      }
      default: {
        Scalar s;
        if (v.is_scalar()) {
          s = v.scalar();
        } else if (f.type == BaseType::kDouble || f.type == BaseType::kFloat) {
          s.d = f.default_real;
        } else {
          s.i = f.default_integer;
        }
        out.set(f.name, scalar_to_json(s, f.type, false, options));
      }
    }
  }
  return out;
}

}  // namespace etpack
