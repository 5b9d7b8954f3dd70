#include "read/delegate/flatc_json.h"

#include <cstring>
#include <string>

#include "core/utf8_text.h"

namespace etpack {
namespace {

Json text_of(const std::string& s) {
  std::string valid;
  append_decoded_utf8(s, valid);
  return Json::string(std::move(valid));
}

Json named(const UnionDef* names, int64_t value, Json number) {
  const char* name = names ? names->name_of(value) : nullptr;
  return name ? Json::string(name) : number;
}

Json scalar_json(BaseType type, const UnionDef* enum_def, Scalar s) {
  if (type == BaseType::kFloat || type == BaseType::kDouble) return Json::real(s.d);
  if (type == BaseType::kBool) return Json::boolean(s.u != 0);
  if (is_signed_integer(type)) return named(enum_def, s.i, Json::integer(s.i));
  const int64_t as_signed = s.u > static_cast<uint64_t>(INT64_MAX) ? -1 : static_cast<int64_t>(s.u);
  return as_signed < 0 ? Json::unsigned_integer(s.u) : named(enum_def, as_signed, Json::unsigned_integer(s.u));
}

Scalar default_of(const FieldDef& f) {
  Scalar s;
  if (f.type == BaseType::kFloat || f.type == BaseType::kDouble) s.d = f.default_real;
  else s.i = f.default_integer;
  return s;
}

Scalar element_at(const Blob& raw, BaseType element, size_t i) {
  Scalar s;
  const size_t width = scalar_size(element);
  const uint8_t* p = raw.data() + width * i;
  if (element == BaseType::kFloat) {
    float f;
    std::memcpy(&f, p, 4);
    s.d = f;
  } else if (element == BaseType::kDouble) {
    std::memcpy(&s.d, p, 8);
  } else if (is_signed_integer(element)) {
    uint64_t u = 0;
    for (size_t b = 0; b < width; ++b) u |= static_cast<uint64_t>(p[b]) << (8 * b);
    const unsigned shift = static_cast<unsigned>(64 - 8 * width);
    s.i = shift == 0 ? static_cast<int64_t>(u) : static_cast<int64_t>(u << shift) >> shift;
  } else {
    s.u = 0;
    for (size_t b = 0; b < width; ++b) s.u |= static_cast<uint64_t>(p[b]) << (8 * b);
  }
  return s;
}

Json table_json(const TableValue& t, std::string_view identifier);

Json value_json(const Value& v, const FieldDef& f, std::string_view identifier) {
  if (v.is_string()) return text_of(v.str());
  if (v.is_table()) return table_json(v.table(), identifier);
  Json list = Json::array();
  if (v.is_items()) {
    for (const Value& item : v.items()) {
      if (item.is_table()) list.push(table_json(item.table(), identifier));
      else if (item.is_string()) list.push(text_of(item.str()));
      else list.push(Json::null());
    }
  } else if (v.is_scalars()) {
    const Blob& raw = v.scalars();
    const size_t width = scalar_size(f.element);
    const size_t n = width ? raw.size() / width : 0;
    for (size_t i = 0; i < n; ++i) list.push(scalar_json(f.element, f.enum_def, element_at(raw, f.element, i)));
  }
  return list;
}

// Depth: the decoder bounded the tree's nesting (DecodeLimits::max_depth).
Json table_json(const TableValue& t, std::string_view identifier) {
  Json out = Json::object();
  for (const FieldDef& f : t.def->fields) {
    if (f.deprecated || (!f.only_in.empty() && f.only_in != identifier)) continue;
    const Value& v = t.fields[f.id];
    if (f.type == BaseType::kUType) {
      // Printed with its union, and only when the union holds a member.
      const size_t value_id = f.id + 1u;
      if (value_id >= t.fields.size() || t.fields[value_id].absent() || !v.is_scalar()) continue;
      out.set(f.name, named(f.union_def, static_cast<int64_t>(v.scalar().u & 0xff), Json::unsigned_integer(v.scalar().u)));
      continue;
    }
    if (is_scalar(f.type)) {
      if (f.optional && !v.is_scalar()) continue;  // `= null`: absent prints nothing
      out.set(f.name, scalar_json(f.type, f.enum_def, v.is_scalar() ? v.scalar() : default_of(f)));
      continue;
    }
    if (v.absent()) continue;
    out.set(f.name, value_json(v, f, identifier));
  }
  return out;
}

}  // namespace

Json flatc_json(const TableValue& table, std::string_view identifier) { return table_json(table, identifier); }

}  // namespace etpack
