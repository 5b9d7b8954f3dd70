// Schema-directed JSON reader: parses program JSON text straight into a
// TableValue, without building a JSON document first (program JSON of a
// real model is megabytes of small objects; a DOM would cost more than the
// rest of serialization). Union values may precede their `_type` member, so
// their text span is remembered and read once the type is known.
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/le_bytes.h"
#include "model/value_json.h"

namespace etpack {
namespace {

constexpr size_t kMaxDepth = 128;

struct PathPart {
  const std::string* name = nullptr;  // field name, or null for an index
  size_t index = 0;
};

class TableReader {
 public:
  explicit TableReader(std::string_view text) : s_(text) {}

  Result<TableValue> document(const TableDef& def) {
    ETP_ASSIGN(TableValue t, table(def, 0));
    skip_ws();
    if (pos_ != s_.size()) return syntax("unexpected text after the JSON value");
    return t;
  }

 private:
  // --- errors -------------------------------------------------------------
  std::string path() const {
    std::string out;
    for (const PathPart& p : path_) {
      if (p.name) {
        if (!out.empty()) out += '.';
        out += *p.name;
      } else {
        out += "[" + std::to_string(p.index) + "]";
      }
    }
    return out.empty() ? "<root>" : out;
  }
  Error syntax(const std::string& what) const {
    return make_error(ErrorCode::kInvalidJson, "JSON: " + what + " at offset " + std::to_string(pos_));
  }
  Error mismatch(const std::string& what) const {
    return make_error(ErrorCode::kSchemaMismatch, "program JSON at " + path() + ": " + what);
  }

  // --- tokens -------------------------------------------------------------
  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t')) ++pos_;
  }
  bool peek(char c) {
    skip_ws();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  Status expect(char c) {
    skip_ws();
    if (pos_ >= s_.size() || s_[pos_] != c) return syntax(std::string("expected '") + c + "'");
    ++pos_;
    return {};
  }
  bool consume(std::string_view word) {
    skip_ws();
    if (s_.substr(pos_, word.size()) == word) {
      pos_ += word.size();
      return true;
    }
    return false;
  }

  static void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  Status hex4(uint32_t& cp) {
    if (s_.size() - pos_ < 4) return syntax("truncated \\u escape");
    cp = 0;
    for (int i = 0; i < 4; ++i) {
      char h = s_[pos_++];
      cp <<= 4;
      if (h >= '0' && h <= '9') cp |= static_cast<uint32_t>(h - '0');
      else if (h >= 'a' && h <= 'f') cp |= static_cast<uint32_t>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F') cp |= static_cast<uint32_t>(h - 'A' + 10);
      else return syntax("bad \\u escape");
    }
    return {};
  }

  // Reads a string token. Plain strings come back as a view into the text
  // (`scratch` untouched); strings with escapes are decoded into `scratch`.
  Result<std::string_view> string_token(std::string& scratch) {
    skip_ws();
    if (pos_ >= s_.size() || s_[pos_] != '"') return syntax("expected a string");
    size_t start = ++pos_;
    while (pos_ < s_.size() && s_[pos_] != '"' && s_[pos_] != '\\') {
      if (static_cast<unsigned char>(s_[pos_]) < 0x20) return syntax("control character in string");
      ++pos_;
    }
    if (pos_ >= s_.size()) return syntax("unterminated string");
    if (s_[pos_] == '"') return s_.substr(start, pos_++ - start);
    scratch.assign(s_.data() + start, pos_ - start);
    while (true) {
      if (pos_ >= s_.size()) return syntax("unterminated string");
      char c = s_[pos_++];
      if (c == '"') return std::string_view(scratch);
      if (static_cast<unsigned char>(c) < 0x20) return syntax("control character in string");
      if (c != '\\') {
        scratch.push_back(c);
        continue;
      }
      if (pos_ >= s_.size()) return syntax("unterminated escape");
      char e = s_[pos_++];
      switch (e) {
        case '"': scratch.push_back('"'); break;
        case '\\': scratch.push_back('\\'); break;
        case '/': scratch.push_back('/'); break;
        case 'b': scratch.push_back('\b'); break;
        case 'f': scratch.push_back('\f'); break;
        case 'n': scratch.push_back('\n'); break;
        case 'r': scratch.push_back('\r'); break;
        case 't': scratch.push_back('\t'); break;
        case 'u': {
          uint32_t cp = 0;
          ETP_TRY(hex4(cp));
          if (cp >= 0xD800 && cp <= 0xDBFF && s_.substr(pos_, 2) == "\\u") {
            size_t save = pos_;
            pos_ += 2;
            uint32_t lo = 0;
            ETP_TRY(hex4(lo));
            if (lo >= 0xDC00 && lo <= 0xDFFF) cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            else pos_ = save;
          }
          append_utf8(scratch, cp);
          break;
        }
        default: return syntax("bad escape");
      }
    }
  }

  // A JSON number token (or NaN/Infinity/-Infinity), as text.
  Result<std::string_view> number_token() {
    skip_ws();
    size_t start = pos_;
    for (std::string_view word : {"NaN", "Infinity", "-Infinity"})
      if (s_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return s_.substr(start, word.size());
      }
    auto digits = [&] {
      size_t d = pos_;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
      return pos_ - d;
    };
    if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
    if (pos_ < s_.size() && s_[pos_] == '0') ++pos_;
    else if (digits() == 0) return syntax("expected a value");
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      if (digits() == 0) return syntax("expected digits after '.'");
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (digits() == 0) return syntax("expected exponent digits");
    }
    return s_.substr(start, pos_ - start);
  }

  // Skips one value (for union values whose type comes later).
  Status skip_value(size_t depth) {
    if (depth > kMaxDepth) return syntax("nesting deeper than " + std::to_string(kMaxDepth));
    skip_ws();
    if (pos_ >= s_.size()) return syntax("unexpected end of input");
    char c = s_[pos_];
    if (c == '"') {
      std::string scratch;
      return string_token(scratch).ok() ? Status() : syntax("bad string");
    }
    if (c == '{' || c == '[') {
      char close = c == '{' ? '}' : ']';
      ++pos_;
      if (peek(close)) {
        ++pos_;
        return {};
      }
      while (true) {
        if (c == '{') {
          std::string scratch;
          ETP_ASSIGN(auto key, string_token(scratch));
          (void)key;
          ETP_TRY(expect(':'));
        }
        ETP_TRY(skip_value(depth + 1));
        skip_ws();
        if (pos_ >= s_.size()) return syntax("unterminated container");
        char d = s_[pos_++];
        if (d == close) return {};
        if (d != ',') return syntax("expected ',' or a closing bracket");
      }
    }
    if (consume("true") || consume("false") || consume("null")) return {};
    ETP_ASSIGN(auto number, number_token());
    (void)number;
    return {};
  }

  // --- scalars ------------------------------------------------------------
  static bool is_integer_text(std::string_view t) {
    size_t i = (!t.empty() && t[0] == '-') ? 1 : 0;
    if (i >= t.size()) return false;
    for (; i < t.size(); ++i)
      if (t[i] < '0' || t[i] > '9') return false;
    return true;
  }

  Result<Scalar> integer(std::string_view t, BaseType type) {
    Scalar s;
    s.u = 0;
    if (!is_integer_text(t)) return mismatch("expected an integer, got " + std::string(t));
    const int bits = static_cast<int>(scalar_size(type) * 8);
    if (is_signed_integer(type)) {
      int64_t v = 0;
      auto r = std::from_chars(t.data(), t.data() + t.size(), v);
      if (r.ec != std::errc() || r.ptr != t.data() + t.size()) return mismatch(std::string(t) + " does not fit int64");
      if (bits < 64) {
        int64_t lo = -(int64_t{1} << (bits - 1)), hi = (int64_t{1} << (bits - 1)) - 1;
        if (v < lo || v > hi) return mismatch(std::string(t) + " does not fit " + base_type_name(type));
      }
      s.i = v;
      return s;
    }
    uint64_t v = 0;
    auto r = t[0] == '-' ? std::from_chars_result{t.data(), std::errc::invalid_argument}
                         : std::from_chars(t.data(), t.data() + t.size(), v);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size())
      return mismatch("expected a non-negative integer for " + std::string(base_type_name(type)) + ", got " + std::string(t));
    if (type == BaseType::kBool && v > 1) return mismatch(std::string(t) + " is not a bool");
    if (bits < 64 && v > ((uint64_t{1} << bits) - 1)) return mismatch(std::string(t) + " does not fit " + base_type_name(type));
    s.u = v;
    return s;
  }

  Result<Scalar> scalar(BaseType type) {
    Scalar s;
    s.u = 0;
    skip_ws();
    if (pos_ >= s_.size()) return syntax("unexpected end of input");
    const bool real = type == BaseType::kFloat || type == BaseType::kDouble;
    if (s_[pos_] == '"') {
      std::string scratch;
      ETP_ASSIGN(std::string_view t, string_token(scratch));
      if (real) {
        if (t == "inf" || t == "Infinity") s.d = std::numeric_limits<double>::infinity();
        else if (t == "-inf" || t == "-Infinity") s.d = -std::numeric_limits<double>::infinity();
        else if (t == "nan" || t == "NaN") s.d = std::numeric_limits<double>::quiet_NaN();
        else return mismatch("expected a number, got string \"" + std::string(t) + "\"");
        return s;
      }
      // A BigInt from a JavaScript host arrives as its decimal digits.
      if (!is_integer_text(t)) return mismatch(std::string("expected ") + base_type_name(type) + ", got string \"" + std::string(t) + "\"");
      return integer(t, type);
    }
    if (consume("true")) {
      if (real) return mismatch("expected a number, got true");
      s.u = 1;
      return s;
    }
    if (consume("false")) {
      if (real) return mismatch("expected a number, got false");
      return s;
    }
    if (s_[pos_] == 'n' || s_[pos_] == '{' || s_[pos_] == '[') return mismatch(std::string("expected ") + base_type_name(type));
    ETP_ASSIGN(std::string_view t, number_token());
    if (!real) return integer(t, type);
    if (t == "NaN") s.d = std::numeric_limits<double>::quiet_NaN();
    else if (t == "Infinity") s.d = std::numeric_limits<double>::infinity();
    else if (t == "-Infinity") s.d = -std::numeric_limits<double>::infinity();
    else s.d = std::strtod(std::string(t).c_str(), nullptr);
    if (type == BaseType::kFloat) s.d = static_cast<double>(static_cast<float>(s.d));
    return s;
  }

  static void put_scalar(uint8_t* p, BaseType type, Scalar s) {
    switch (scalar_size(type)) {
      case 1: p[0] = static_cast<uint8_t>(s.u); break;
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

  // --- schema values --------------------------------------------------------
  Result<Value> vector(const FieldDef& f, size_t depth) {
    ETP_TRY(expect('['));
    const bool objects = f.element == BaseType::kTable || f.element == BaseType::kString;
    Value::Items items;
    std::vector<uint8_t> raw;
    const size_t width = objects ? 0 : scalar_size(f.element);
    if (!objects && width == 0) return mismatch("unsupported vector element type");
    if (peek(']')) {
      ++pos_;
    } else {
      for (size_t i = 0;; ++i) {
        path_.push_back({nullptr, i});
        if (f.element == BaseType::kTable) {
          ETP_ASSIGN(TableValue t, table(*f.table, depth + 1));
          items.push_back(Value::from_table(std::move(t)));
        } else if (f.element == BaseType::kString) {
          std::string scratch;
          if (!peek('"')) return mismatch("expected a string");
          ETP_ASSIGN(std::string_view sv, string_token(scratch));
          items.push_back(Value::from_string(std::string(sv)));
        } else {
          ETP_ASSIGN(Scalar sc, scalar(f.element));
          raw.resize(raw.size() + width);
          put_scalar(raw.data() + raw.size() - width, f.element, sc);
        }
        path_.pop_back();
        skip_ws();
        if (pos_ >= s_.size()) return syntax("unterminated list");
        char c = s_[pos_++];
        if (c == ']') break;
        if (c != ',') return syntax("expected ',' or ']'");
      }
    }
    if (objects) return Value::from_items(std::move(items));
    return Value::from_scalars(Blob::own(std::move(raw)));
  }

  Result<Value> field(const FieldDef& f, size_t depth) {
    if (consume("null")) return Value();
    switch (f.type) {
      case BaseType::kString: {
        if (!peek('"')) return mismatch("expected a string");
        std::string scratch;
        ETP_ASSIGN(std::string_view sv, string_token(scratch));
        return Value::from_string(std::string(sv));
      }
      case BaseType::kTable: {
        ETP_ASSIGN(TableValue t, table(*f.table, depth + 1));
        return Value::from_table(std::move(t));
      }
      case BaseType::kVector:
        if (!peek('[')) return mismatch("expected a list");
        return vector(f, depth + 1);
      default: {
        if (!is_scalar(f.type)) return mismatch("unsupported field type");
        ETP_ASSIGN(Scalar sc, scalar(f.type));
        if (f.type == BaseType::kDouble || f.type == BaseType::kFloat) return Value::from_double(sc.d);
        if (is_signed_integer(f.type)) return Value::from_int(sc.i);
        return Value::from_uint(sc.u);
      }
    }
  }

  Result<TableValue> table(const TableDef& def, size_t depth) {
    if (depth > kMaxDepth) return syntax("nesting deeper than " + std::to_string(kMaxDepth));
    if (!peek('{')) return mismatch("expected an object for " + def.name);
    ++pos_;
    TableValue out(&def);
    struct PendingUnion {
      const FieldDef* field;
      size_t begin = 0;
      bool has_value = false;
      int type = -1;  // -1 unknown, 0 NONE
      bool has_type = false;
    };
    std::vector<PendingUnion> unions;
    auto pending = [&](const FieldDef* f) -> PendingUnion& {
      for (auto& u : unions)
        if (u.field == f) return u;
      unions.push_back({f});
      return unions.back();
    };
    if (peek('}')) {
      ++pos_;
      return out;
    }
    std::string scratch;
    while (true) {
      ETP_ASSIGN(std::string_view key_view, string_token(scratch));
      ETP_TRY(expect(':'));
      const FieldDef* f = def.find(key_view);
      if (f == nullptr) {
        std::string key(key_view);
        path_.push_back({&key, 0});
        Error e = mismatch("no field '" + key + "' in table " + def.name);
        path_.pop_back();
        return e;
      }
      path_.push_back({&f->name, 0});
      if (f->type == BaseType::kUType) {
        // `<union>_type`: a member table name, an integer, NONE or null.
        const FieldDef& union_field = def.fields[f->id + 1u];
        PendingUnion& u = pending(&union_field);
        u.has_type = true;
        if (consume("null")) {
          u.type = 0;
        } else if (peek('"')) {
          std::string name_scratch;
          ETP_ASSIGN(std::string_view name, string_token(name_scratch));
          u.type = name == "NONE" ? 0 : f->union_def->type_of(name);
          if (u.type < 0) return mismatch("unknown " + f->union_def->name + " member \"" + std::string(name) + "\"");
        } else {
          ETP_ASSIGN(Scalar sc, scalar(BaseType::kUType));
          u.type = static_cast<int>(sc.u);
          if (sc.u >= f->union_def->members.size() || (u.type != 0 && f->union_def->members[sc.u] == nullptr))
            return mismatch("unknown " + f->union_def->name + " member " + std::to_string(sc.u));
        }
      } else if (f->type == BaseType::kUnion) {
        PendingUnion& u = pending(f);
        if (!consume("null")) {
          u.has_value = true;
          skip_ws();
          u.begin = pos_;
          ETP_TRY(skip_value(depth + 1));
        }
      } else {
        ETP_ASSIGN(Value v, field(*f, depth));
        out.fields[f->id] = std::move(v);
      }
      path_.pop_back();
      skip_ws();
      if (pos_ >= s_.size()) return syntax("unterminated object");
      char c = s_[pos_++];
      if (c == '}') break;
      if (c != ',') return syntax("expected ',' or '}'");
      skip_ws();
    }
    for (PendingUnion& u : unions) {
      if (!u.has_value) continue;
      path_.push_back({&u.field->name, 0});
      if (!u.has_type || u.type <= 0) return mismatch("union value without a member type in '" + u.field->name + "_type'");
      size_t resume = pos_;
      pos_ = u.begin;
      ETP_ASSIGN(TableValue member, table(*u.field->union_def->members[static_cast<size_t>(u.type)], depth + 1));
      pos_ = resume;
      out.fields[u.field->id] = Value::from_table(std::move(member));
      out.fields[u.field->id - 1u] = Value::from_uint(static_cast<uint64_t>(u.type));
      path_.pop_back();
    }
    return out;
  }

  std::string_view s_;
  size_t pos_ = 0;
  std::vector<PathPart> path_;
};

}  // namespace

Result<TableValue> table_from_json_text(std::string_view text, const TableDef& def) {
  return TableReader(text).document(def);
}

Result<TableValue> table_from_json(const Json& json, const TableDef& def) {
  return table_from_json_text(write_json(json), def);
}

}  // namespace etpack
