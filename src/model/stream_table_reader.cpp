// A program the JavaScript host wrote as a value stream (core/value_stream.h)
// into the model: the stream source of the shared program reader
// (model/table_reader.h), so the schema rules, error codes and paths are
// those of JSON text. Numbers arrive as values (no digits to parse) and keys
// as ids, each matched to its field once per table type.
#include "model/stream_table.h"

#include "core/value_stream.h"
#include "model/table_reader.h"

namespace etpack {
namespace {

using table_reader::ScalarToken;

class StreamSource {
 public:
  explicit StreamSource(std::string_view bytes) : in_(bytes) {}
  Status begin() { return in_.begin(); }
  void preset_keys(std::vector<std::string_view> keys) { in_.preset_keys(std::move(keys)); }

  size_t pos() const { return in_.pos(); }
  void seek(size_t pos) { in_.seek(pos); }
  size_t value_pos() const { return in_.pos(); }
  bool at_end() const { return in_.at_end(); }
  Error error(const std::string& what) const { return in_.error(what); }
  static const char* trailing_message() { return "unexpected data after the program"; }

  bool consume_null() { return in_.consume(StreamTag::kNull); }
  bool at_object() const { return in_.peek() == StreamTag::kObject; }
  bool at_array() const { return in_.peek() == StreamTag::kArray; }
  bool at_string() const { return in_.peek() == StreamTag::kString; }
  bool at_reference() const { return in_.peek() == StreamTag::kBytes; }
  Status begin_object() { return in_.take(StreamTag::kObject); }
  Status begin_array() { return in_.take(StreamTag::kArray); }
  Result<bool> next_member(bool) { return more(); }
  Result<bool> next_item(bool) { return more(); }

  Result<const FieldDef*> key(const TableDef& def, size_t hint, std::string&, std::string_view& name) {
    ETP_ASSIGN(uint32_t id, in_.key(name));
    // Keys are few (a program's field names) and each mostly belongs to one
    // table type: remember the last match per key.
    if (id >= fields_.size()) fields_.resize(id + 1u);
    Match& m = fields_[id];
    if (m.def != &def) m = {&def, def.find(name, hint)};
    return m.field;
  }

  Result<std::string_view> string(std::string&) { return text_value(); }

  bool next_int32(int64_t& v) { return in_.next_int32(v); }

  Result<ScalarToken> scalar(std::string&) {
    ScalarToken token;
    switch (in_.peek()) {
      case StreamTag::kInt32: {
        in_.consume(StreamTag::kInt32);
        token.kind = ScalarToken::kInt;
        ETP_ASSIGN(int32_t v, in_.int32());
        token.i = v;
        return token;
      }
      case StreamTag::kDouble: {
        in_.consume(StreamTag::kDouble);
        token.kind = ScalarToken::kDouble;
        ETP_ASSIGN(token.d, in_.real());
        return token;
      }
      case StreamTag::kString: {
        token.kind = ScalarToken::kString;
        ETP_ASSIGN(token.text, text_value());
        return token;
      }
      case StreamTag::kTrue:
      case StreamTag::kFalse:
        token.kind = in_.peek() == StreamTag::kTrue ? ScalarToken::kTrue : ScalarToken::kFalse;
        in_.seek(in_.pos() + 1);
        return token;
      case StreamTag::kNull:
      case StreamTag::kObject:
      case StreamTag::kArray:
      case StreamTag::kBytes:
        token.kind = ScalarToken::kOther;
        return token;
      default:
        if (in_.at_end()) return token;  // kEnd
        return in_.error("unexpected tag where a value belongs");
    }
  }

  Result<Json> reference(size_t, size_t) {
    ETP_TRY(in_.take(StreamTag::kBytes));
    ETP_ASSIGN(std::string_view text, in_.text());
    return parse_json(text);
  }
  Status skip_value(size_t depth, size_t max_depth) { return in_.skip_value(depth, max_depth); }

 private:
  Result<std::string_view> text_value() {
    ETP_TRY(in_.take(StreamTag::kString));
    return in_.text();
  }
  Result<bool> more() {
    if (in_.consume(StreamTag::kEnd)) return false;
    if (in_.at_end()) return in_.error("unexpected end of the stream");
    return true;
  }

  struct Match {
    const TableDef* def = nullptr;
    const FieldDef* field = nullptr;
  };
  ValueStream in_;
  std::vector<Match> fields_;  // by key id
};

}  // namespace

Result<TableValue> table_from_value_stream(std::string_view bytes, const TableDef& def, const BlobResolver& resolve_blob) {
  StreamSource source(bytes);
  ETP_TRY(source.begin());
  return table_reader::TableReader<StreamSource>(source, resolve_blob).document(def);
}

Result<TableValue> table_from_value_stream_without(std::string_view bytes, const TableDef& def, const BlobResolver& resolve_blob,
                                                   size_t skip_begin, size_t skip_end, std::vector<std::string_view> keys) {
  StreamSource source(bytes);
  ETP_TRY(source.begin());
  source.preset_keys(std::move(keys));
  table_reader::TableReader<StreamSource> reader(source, resolve_blob);
  reader.skip_root_member(skip_begin, skip_end);
  return reader.document(def);
}

}  // namespace etpack
