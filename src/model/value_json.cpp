#include "model/value_json.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "core/le_bytes.h"

namespace etpack {
namespace {

Error mismatch(const std::string& path, const std::string& what) {
  return make_error(ErrorCode::kSchemaMismatch, "program JSON at " + (path.empty() ? std::string("<root>") : path) + ": " + what);
}

std::string join(const std::string& path, const std::string& name) { return path.empty() ? name : path + "." + name; }

Result<Scalar> integer_from_json(const Json& j, BaseType type, const std::string& path);

Result<Scalar> scalar_from_json(const Json& j, BaseType type, const std::string& path) {
  Scalar s;
  s.u = 0;
  if (type == BaseType::kFloat || type == BaseType::kDouble) {
    if (j.is_string()) {
      const std::string& t = j.text();
      if (t == "inf" || t == "Infinity") { s.d = std::numeric_limits<double>::infinity(); return s; }
      if (t == "-inf" || t == "-Infinity") { s.d = -std::numeric_limits<double>::infinity(); return s; }
      if (t == "nan" || t == "NaN") { s.d = std::numeric_limits<double>::quiet_NaN(); return s; }
      return mismatch(path, "expected a number, got string \"" + t + "\"");
    }
    auto d = j.as_double();
    if (!d) return mismatch(path, "expected a number");
    s.d = type == BaseType::kFloat ? static_cast<double>(static_cast<float>(*d)) : *d;
    return s;
  }
  if (j.is_bool()) {
    s.u = j.bool_value() ? 1 : 0;
    return s;
  }
  Json number = j;
  if (j.is_string() && !j.text().empty()) {
    // A BigInt from a JavaScript host arrives as its decimal digits.
    const std::string& t = j.text();
    bool digits = t.find_first_not_of("0123456789", t[0] == '-' ? 1 : 0) == std::string::npos && t != "-";
    if (!digits) return mismatch(path, std::string("expected ") + base_type_name(type) + ", got string \"" + t + "\"");
    number = Json::number_text(t);
  }
  if (!number.is_number()) return mismatch(path, std::string("expected ") + base_type_name(type));
  return integer_from_json(number, type, path);
}

Result<Scalar> integer_from_json(const Json& j, BaseType type, const std::string& path) {
  Scalar s;
  s.u = 0;
  if (is_signed_integer(type)) {
    auto v = j.as_int64();
    if (!v) return mismatch(path, "expected an integer, got " + j.text());
    int bits = static_cast<int>(scalar_size(type) * 8);
    if (bits < 64) {
      int64_t lo = -(int64_t{1} << (bits - 1)), hi = (int64_t{1} << (bits - 1)) - 1;
      if (*v < lo || *v > hi) return mismatch(path, j.text() + " does not fit " + base_type_name(type));
    }
    s.i = *v;
    return s;
  }
  auto v = j.as_uint64();
  if (!v) return mismatch(path, "expected a non-negative integer, got " + j.text());
  int bits = static_cast<int>(scalar_size(type) * 8);
  if (type == BaseType::kBool && *v > 1) return mismatch(path, j.text() + " is not a bool");
  if (bits < 64 && *v > ((uint64_t{1} << bits) - 1)) return mismatch(path, j.text() + " does not fit " + base_type_name(type));
  s.u = *v;
  return s;
}

void put_scalar(uint8_t* p, BaseType type, Scalar s) {
  switch (scalar_size(type)) {
    case 1: write_le<uint8_t>(p, static_cast<uint8_t>(s.u)); break;
    case 2: write_le<uint16_t>(p, static_cast<uint16_t>(s.u)); break;
    case 4:
      if (type == BaseType::kFloat) {
        float f = static_cast<float>(s.d);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        write_le<uint32_t>(p, bits);
      } else {
        write_le<uint32_t>(p, static_cast<uint32_t>(s.u));
      }
      break;
    default:
      if (type == BaseType::kDouble) {
        uint64_t bits;
        std::memcpy(&bits, &s.d, 8);
        write_le<uint64_t>(p, bits);
      } else {
        write_le<uint64_t>(p, s.u);
      }
  }
}

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

Result<Value> field_from_json(const Json& j, const FieldDef& f, const std::string& path);

Result<Value> vector_from_json(const Json& j, const FieldDef& f, const std::string& path) {
  if (!j.is_array()) return mismatch(path, "expected a list");
  const auto& items = j.items();
  if (f.element == BaseType::kTable || f.element == BaseType::kString) {
    Value::Items out;
    out.reserve(items.size());
    for (size_t i = 0; i < items.size(); ++i) {
      std::string p = path + "[" + std::to_string(i) + "]";
      if (f.element == BaseType::kString) {
        if (!items[i].is_string()) return mismatch(p, "expected a string");
        out.push_back(Value::from_string(items[i].text()));
      } else {
        if (!items[i].is_object()) return mismatch(p, "expected an object");
        ETP_ASSIGN(TableValue t, table_from_json(items[i], *f.table, p));
        out.push_back(Value::from_table(std::move(t)));
      }
    }
    return Value::from_items(std::move(out));
  }
  if (!is_scalar(f.element)) return mismatch(path, "unsupported vector element type");
  size_t width = scalar_size(f.element);
  std::vector<uint8_t> raw(items.size() * width);
  for (size_t i = 0; i < items.size(); ++i) {
    ETP_ASSIGN(Scalar s, scalar_from_json(items[i], f.element, path + "[" + std::to_string(i) + "]"));
    put_scalar(raw.data() + i * width, f.element, s);
  }
  return Value::from_scalars(Blob::own(std::move(raw)));
}

Result<Value> field_from_json(const Json& j, const FieldDef& f, const std::string& path) {
  if (j.is_null()) return Value();
  switch (f.type) {
    case BaseType::kString:
      if (!j.is_string()) return mismatch(path, "expected a string");
      return Value::from_string(j.text());
    case BaseType::kTable: {
      if (!j.is_object()) return mismatch(path, "expected an object");
      ETP_ASSIGN(TableValue t, table_from_json(j, *f.table, path));
      return Value::from_table(std::move(t));
    }
    case BaseType::kVector: return vector_from_json(j, f, path);
    default: {
      if (!is_scalar(f.type)) return mismatch(path, "unsupported field type");
      ETP_ASSIGN(Scalar s, scalar_from_json(j, f.type, path));
      Value v;
      if (f.type == BaseType::kDouble || f.type == BaseType::kFloat) v = Value::from_double(s.d);
      else if (is_signed_integer(f.type)) v = Value::from_int(s.i);
      else v = Value::from_uint(s.u);
      return v;
    }
  }
}

constexpr int64_t kMaxSafeInteger = (int64_t{1} << 53) - 1;

Json scalar_to_json(Scalar s, BaseType type, bool in_vector, const ToJsonOptions& options) {
  switch (type) {
    case BaseType::kBool: return Json::boolean(s.u != 0);
    case BaseType::kFloat:
    case BaseType::kDouble:
      // Upstream's Double dataclass keeps infinities as "inf"/"-inf" strings;
      // floats inside lists are written by json.dumps as bare tokens.
      if (!in_vector && std::isinf(s.d)) return Json::string(s.d > 0 ? "inf" : "-inf");
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

Result<TableValue> table_from_json(const Json& json, const TableDef& def, const std::string& path) {
  if (!json.is_object()) return mismatch(path, "expected an object for " + def.name);
  TableValue table(&def);
  for (const auto& [name, value] : json.members()) {
    const FieldDef* f = def.find(name);
    if (f == nullptr) return mismatch(join(path, name), "no field '" + name + "' in table " + def.name);
    if (f->type == BaseType::kUType) continue;  // read together with its union below
    if (f->type == BaseType::kUnion) {
      const Json* tag = json.find(name + "_type");
      std::string p = join(path, name);
      if (value.is_null() || tag == nullptr || tag->is_null()) {
        if (!value.is_null()) return mismatch(p, "union value without '" + name + "_type'");
        continue;
      }
      int type = -1;
      if (tag->is_string()) {
        type = f->union_def->type_of(tag->text());
        if (type < 0 && tag->text() == "NONE") continue;
      } else if (auto n = tag->as_int64()) {
        type = static_cast<int>(*n);
      }
      if (type <= 0 || static_cast<size_t>(type) >= f->union_def->members.size() ||
          f->union_def->members[static_cast<size_t>(type)] == nullptr)
        return mismatch(p + "_type", "unknown " + f->union_def->name + " member " + write_json(*tag));
      ETP_ASSIGN(TableValue member, table_from_json(value, *f->union_def->members[static_cast<size_t>(type)], p));
      table.fields[f->id] = Value::from_table(std::move(member));
      table.fields[f->id - 1u] = Value::from_uint(static_cast<uint64_t>(type));
      continue;
    }
    ETP_ASSIGN(Value v, field_from_json(value, *f, join(path, name)));
    table.fields[f->id] = std::move(v);
  }
  return table;
}

Json table_to_json(const TableValue& table, const ToJsonOptions& options) {
  Json out = Json::object();
  for (const FieldDef& f : table.def->fields) {
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
        Json list = Json::array();
        if (v.is_items()) {
          for (const Value& item : v.items())
            list.push(item.is_table() ? table_to_json(item.table(), options)
                                      : string_to_json(item.is_string() ? item.str() : "", options));
        } else {
          size_t width = scalar_size(f.element);
          const Blob& raw = v.scalars();
          list.items().reserve(raw.size() / width);
          for (size_t i = 0; i + width <= raw.size(); i += width)
            list.push(scalar_to_json(get_scalar(raw.data() + i, f.element), f.element, true, options));
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
