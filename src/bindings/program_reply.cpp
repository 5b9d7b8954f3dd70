#include "bindings/program_reply.h"

#include <charconv>
#include <cmath>
#include <vector>

#include "core/json.h"
#include "model/value_json.h"

namespace etpack::bindings {
namespace {

constexpr int64_t kMaxSafeInteger = (int64_t{1} << 53) - 1;

// Walks the model once, appending to the text and the fixup list. Recursion
// follows the schema's nesting (a handful of levels), not the file.
class ReplyWriter {
 public:
  explicit ReplyWriter(Output& out) : out_(out) {}

  ProgramReply run(const TableValue& program) {
    reply_.fixups.push_back('[');
    table(program);
    reply_.fixups.push_back(']');
    return std::move(reply_);
  }

 private:
  struct Step {
    const std::string* name;  // a field, or null for a list index
    size_t index;
  };

  void append_int(std::string& s, int64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    s.append(buf, r.ptr);
  }
  void append_uint(std::string& s, uint64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    s.append(buf, r.ptr);
  }

  // `null` in the text, and [kind, value, ...path] in the list.
  template <typename WriteValue>
  void fixup(int kind, WriteValue write_value) {
    reply_.text += "null";
    std::string& f = reply_.fixups;
    if (f.size() > 1) f.push_back(',');
    f.push_back('[');
    f.push_back(static_cast<char>('0' + kind));
    f.push_back(',');
    write_value(f);
    for (const Step& s : path_) {
      f.push_back(',');
      if (s.name) write_json_string(*s.name, f);
      else append_uint(f, s.index);
    }
    f.push_back(']');
  }

  void scalar(Scalar s, BaseType type, bool in_vector) {
    std::string& t = reply_.text;
    switch (type) {
      case BaseType::kBool: t += s.u != 0 ? "true" : "false"; return;
      case BaseType::kFloat:
      case BaseType::kDouble:
        // As table_to_json: a Double's infinity is upstream's "inf"/"-inf".
        if (!in_vector && std::isinf(s.d)) {
          t += s.d > 0 ? "\"inf\"" : "\"-inf\"";
        } else if (!std::isfinite(s.d)) {
          const char* token = std::isnan(s.d) ? "\"NaN\"" : s.d > 0 ? "\"Infinity\"" : "\"-Infinity\"";
          fixup(2, [&](std::string& f) { f += token; });
        } else {
          t += python_float_repr(s.d);
        }
        return;
      default:
        if (is_signed_integer(type)) {
          if (s.i > kMaxSafeInteger || s.i < -kMaxSafeInteger) {
            fixup(1, [&](std::string& f) { f.push_back('"'); append_int(f, s.i); f.push_back('"'); });
          } else {
            append_int(t, s.i);
          }
        } else if (s.u > static_cast<uint64_t>(kMaxSafeInteger)) {
          fixup(1, [&](std::string& f) { f.push_back('"'); append_uint(f, s.u); f.push_back('"'); });
        } else {
          append_uint(t, s.u);
        }
    }
  }

  void vector(const FieldDef& f, const Value& v) {
    std::string& t = reply_.text;
    // Weights and blobs go back by reference; small structural byte lists
    // (dim_order) stay plain number lists.
    if (v.is_scalars() && f.element == BaseType::kUByte && f.name != "dim_order") {
      const size_t index = out_.add_blob(v.scalars());
      fixup(0, [&](std::string& s) { append_uint(s, index); });
      return;
    }
    t.push_back('[');
    if (v.is_items()) {
      size_t i = 0;
      for (const Value& item : v.items()) {
        if (i) t.push_back(',');
        path_.push_back({nullptr, i++});
        if (item.is_table()) table(item.table());
        else write_json_string(item.is_string() ? item.str() : std::string(), t);
        path_.pop_back();
      }
    } else {
      const size_t width = scalar_size(f.element);
      std::vector<uint8_t> fetched;
      size_t size = 0;
      const uint8_t* data = scalar_vector_bytes(v.scalars(), fetched, size);
      for (size_t i = 0, n = 0; i + width <= size; i += width, ++n) {
        if (n) t.push_back(',');
        path_.push_back({nullptr, n});
        scalar(get_scalar(data + i, f.element), f.element, true);
        path_.pop_back();
      }
    }
    t.push_back(']');
  }

  void table(const TableValue& table) {
    std::string& t = reply_.text;
    t.push_back('{');
    bool first = true;
    auto key = [&](const std::string& name) {
      if (!first) t.push_back(',');
      first = false;
      write_json_string(name, t);
      t.push_back(':');
    };
    for (const FieldDef* field : json_field_order(*table.def)) {
      const FieldDef& f = *field;
      const Value& v = table.fields[f.id];
      if (f.type == BaseType::kUType) continue;  // written after its union value
      key(f.name);
      path_.push_back({&f.name, 0});
      switch (f.type) {
        case BaseType::kUnion:
          if (v.is_table()) this->table(v.table());
          else t += "null";
          path_.pop_back();
          key(f.name + "_type");
          if (v.is_table()) write_json_string(v.table().def->name, t);
          else t += "null";
          continue;
        case BaseType::kString:
          if (v.is_string()) write_json_string(v.str(), t);
          else t += "null";
          break;
        case BaseType::kTable:
          if (v.is_table()) this->table(v.table());
          else t += "null";
          break;
        case BaseType::kVector:
          if (v.absent()) t += "null";
          else vector(f, v);
          break;
        default: {
          Scalar s;
          if (v.is_scalar()) s = v.scalar();
          else if (f.type == BaseType::kDouble || f.type == BaseType::kFloat) s.d = f.default_real;
          else s.i = f.default_integer;
          scalar(s, f.type, false);
        }
      }
      path_.pop_back();
    }
    t.push_back('}');
  }

  Output& out_;
  ProgramReply reply_;
  std::vector<Step> path_;
};

}  // namespace

ProgramReply write_program_reply(const TableValue& program, Output& out) {
  return ReplyWriter(out).run(program);
}

}  // namespace etpack::bindings
