// Program JSON text into the model: the JSON source of the shared program
// reader (model/table_reader.h), over the shared lexer (core/json_lexer.h).
#include "core/json_lexer.h"
#include "model/table_reader.h"

namespace etpack {
namespace {

using table_reader::ScalarToken;

class JsonSource {
 public:
  explicit JsonSource(std::string_view text) : text_(text), lex_(text) {}

  size_t pos() const { return lex_.pos(); }
  void seek(size_t pos) { lex_.seek(pos); }
  size_t value_pos() {
    lex_.skip_ws();
    return lex_.pos();
  }
  bool at_end() { return lex_.at_end(); }
  Error error(const std::string& what) const { return lex_.error(what); }
  static const char* trailing_message() { return "unexpected text after the JSON value"; }

  bool consume_null() { return lex_.consume("null"); }
  bool at_object() { return lex_.peek() == '{'; }
  bool at_array() { return lex_.peek() == '['; }
  bool at_string() { return lex_.peek() == '"'; }
  bool at_reference() { return at_object(); }
  Status begin_object() { return lex_.expect('{'); }
  Status begin_array() { return lex_.expect('['); }
  Result<bool> next_member(bool first) { return next(first, '}', "unterminated object", "expected ',' or '}'"); }
  Result<bool> next_item(bool first) { return next(first, ']', "unterminated list", "expected ',' or ']'"); }

  // The member's key and its ':' consumed: the field it names, or null
  // with the decoded name in `name`.
  Result<const FieldDef*> key(const TableDef& def, size_t hint, std::string& scratch, std::string_view& name) {
    const FieldDef* f = literal_key(def, hint);
    if (f == nullptr) {
      // Decoded only when it is not a schema name as it stands: a key
      // with escapes, or one to report.
      ETP_ASSIGN(name, lex_.string_token(scratch));
      ETP_TRY(lex_.expect(':'));
      return def.find(name);
    }
    ETP_TRY(lex_.expect(':'));
    return f;
  }

  Result<std::string_view> string(std::string& scratch) { return lex_.string_token(scratch); }

  static bool next_int32(int64_t&) { return false; }  // numbers are text here: scalar()

  Result<ScalarToken> scalar(std::string& scratch) {
    ScalarToken token;
    const char first = lex_.peek();
    if (first == '\0') return token;  // kEnd
    if (first == '"') {
      token.kind = ScalarToken::kString;
      ETP_ASSIGN(token.text, lex_.string_token(scratch));
      return token;
    }
    if (first == 't' && lex_.consume("true")) {
      token.kind = ScalarToken::kTrue;
      return token;
    }
    if (first == 'f' && lex_.consume("false")) {
      token.kind = ScalarToken::kFalse;
      return token;
    }
    if (first == 'n' || first == '{' || first == '[') {
      token.kind = ScalarToken::kOther;
      return token;
    }
    token.kind = ScalarToken::kNumberText;
    ETP_ASSIGN(token.text, lex_.number_token());
    return token;
  }

  // A byte reference: the host's JSON object, parsed.
  Result<Json> reference(size_t depth, size_t max_depth) {
    const size_t begin = value_pos();
    ETP_TRY(lex_.skip_value(depth, max_depth));
    return parse_json(text_.substr(begin, lex_.pos() - begin));
  }
  Status skip_value(size_t depth, size_t max_depth) { return lex_.skip_value(depth, max_depth); }

 private:
  Result<bool> next(bool first, char close, const char* unterminated, const char* expected) {
    const char c = lex_.peek();
    if (c == close) {
      ETP_TRY(lex_.expect(close));
      return false;
    }
    if (first) return true;
    if (c != ',') return lex_.error(c == '\0' ? unterminated : expected);
    ETP_TRY(lex_.expect(','));
    return true;
  }

  // The field whose name the next token spells literally, consumed; null
  // (nothing consumed) otherwise. Schema names hold no quote or backslash,
  // so a literal match is the decoded key, found without decoding it. Keys
  // mostly come in declaration order: fields[hint] is tried first.
  const FieldDef* literal_key(const TableDef& def, size_t hint) {
    if (lex_.peek() != '"') return nullptr;
    const size_t at = lex_.pos() + 1;
    auto spells = [&](const FieldDef& f) {
      const size_t n = f.name.size();
      return text_.size() - at > n && text_[at + n] == '"' && std::memcmp(text_.data() + at, f.name.data(), n) == 0;
    };
    const FieldDef* found = nullptr;
    if (hint < def.fields.size() && spells(def.fields[hint])) {
      found = &def.fields[hint];
    } else {
      for (const FieldDef& f : def.fields)
        if (spells(f)) {
          found = &f;
          break;
        }
    }
    if (found != nullptr) lex_.seek(at + found->name.size() + 1);
    return found;
  }

  std::string_view text_;
  JsonLexer lex_;
};

}  // namespace

Result<TableValue> table_from_json_text(std::string_view text, const TableDef& def, const BlobResolver& resolve_blob) {
  JsonSource source(text);
  return table_reader::TableReader<JsonSource>(source, resolve_blob).document(def);
}

Result<TableValue> table_from_json(const Json& json, const TableDef& def) {
  return table_from_json_text(write_json(json), def);
}

}  // namespace etpack
