// The schema-directed program reader, over any source of JSON-shaped
// values: JSON text (model/json_table_reader.cpp) or the binary value stream
// a JavaScript host writes (model/stream_table_reader.cpp). One reader, so
// both forms get the same schema rules, error codes and paths. It reads
// straight into a TableValue, without a document first (program JSON of a
// real model is megabytes of small objects; a DOM would cost more than the
// rest of serialization). Union values may precede their `_type` member, so
// their position is remembered and read once the type is known.
//
// A Source provides: pos()/seek() (a position to come back to),
// value_pos() (the position of the next value), at_end(), error(what) (a
// syntax error at the position), trailing_message(), consume_null(),
// at_object()/at_array()/at_string()/at_reference(), begin_object()/
// begin_array(), next_member(first)/next_item(first) (false at the close),
// key(def, hint, scratch, name) (the member's field, or null with its name),
// string(scratch), scalar(scratch) (a ScalarToken), next_int32(v) (a fast
// path: true, with the value, if an int32 value comes next and was consumed;
// a source may always say false), reference(depth, max)
// (a byte reference as a Json object) and skip_value(depth, max).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/nan_bits.h"
#include "model/box_arena.h"
#include "model/table_reader_scalars.h"
#include "model/value_json.h"
#include "schema/last_union_members.h"

namespace etpack::table_reader {

template <typename Source>
class TableReader : ScalarRules {
 public:
  TableReader(Source& source, const BlobResolver& resolve_blob)
      : src_(source), resolve_blob_(resolve_blob), arena_(BoxArena::create()) {}
  ~TableReader() { arena_->release(); }  // the boxes made keep it while they live
  TableReader(const TableReader&) = delete;
  TableReader& operator=(const TableReader&) = delete;

  // The root's member whose value is at [begin, end) of the source (read
  // already, by encode/stream_encoder.h) is passed over, left absent.
  void skip_root_member(size_t begin, size_t end) {
    skip_begin_ = begin;
    skip_end_ = end;
  }

  Result<TableValue> document(const TableDef& def) {
    ETP_ASSIGN(Value t, table(def, 0));
    if (!src_.at_end()) return syntax(src_.trailing_message());
    return std::move(t.table());  // the only owner: moved out, not copied
  }

 private:
  // --- errors ---------------------------------------------------------------
  Error syntax(const std::string& what) const { return src_.error(what); }
  Status skip_value(size_t depth) { return src_.skip_value(depth, kMaxDepth); }

  // --- scalars ------------------------------------------------------------
  Result<Scalar> scalar(BaseType type) {
    Scalar s;
    s.u = 0;
    const bool real = type == BaseType::kFloat || type == BaseType::kDouble;
    int64_t small = 0;
    if (src_.next_int32(small)) {
      // The common case of the stream, an int32: no token to build.
      if (!real) return integer_value(small, type);
      s.d = as_real(static_cast<double>(small), type);
      return s;
    }
    std::string scratch;
    ETP_ASSIGN(ScalarToken token, src_.scalar(scratch));
    const std::string_view t = token.text;
    switch (token.kind) {
      case ScalarToken::kEnd: return syntax("unexpected end of input");
      case ScalarToken::kOther: return mismatch(std::string("expected ") + base_type_name(type));
      case ScalarToken::kTrue:
        if (real) return mismatch("expected a number, got true");
        s.u = 1;
        return s;
      case ScalarToken::kFalse:
        if (real) return mismatch("expected a number, got false");
        return s;
      case ScalarToken::kInt:
        if (!real) return integer_value(token.i, type);
        s.d = as_real(static_cast<double>(token.i), type);
        return s;
      case ScalarToken::kDouble:
        if (!real) return double_as_integer(token.d, type);
        s.d = as_real(token.d, type);
        return s;
      case ScalarToken::kNumberText:
        if (!real) return integer(t, type);
        if (t == "NaN") s.d = std::numeric_limits<double>::quiet_NaN();
        else if (t == "Infinity") s.d = std::numeric_limits<double>::infinity();
        else if (t == "-Infinity") s.d = -std::numeric_limits<double>::infinity();
        else s.d = std::strtod(std::string(t).c_str(), nullptr);
        s.d = as_real(s.d, type);
        return s;
      case ScalarToken::kString: break;
    }
    // A JavaScript Number marked in JSON text (programText): a real one
    // as its digits, an integer beyond 2^53 refused (it has been rounded).
    const bool marked_number = t.size() > 1 && t[0] == '\0' && t[1] == 'N';
    if (marked_number) {
      if (!real) return unsafe_number(std::string(t.substr(2)));
      s.d = std::strtod(std::string(t.substr(2)).c_str(), nullptr);
      return s;
    }
    if (real) {
      // A NaN other than the canonical one, from a JavaScript host: its bits
      // (core/nan_bits.h).
      if (auto nan = double_of_nan_marker(t)) {
        s.d = as_real(*nan, type);
        return s;
      }
      // Only upstream's own spellings: exir/schema.py's Double keeps an
      // infinity as the string "inf" or "-inf" (and asserts nothing else).
      // NaN and the infinities otherwise travel as Python's bare tokens
      // (NaN, Infinity, -Infinity); any other string, "nan" included, is
      // refused rather than guessed at.
      if (t == "inf") s.d = std::numeric_limits<double>::infinity();
      else if (t == "-inf") s.d = -std::numeric_limits<double>::infinity();
      else return mismatch("expected a number (or upstream's \"inf\"/\"-inf\"; NaN and Infinity are bare tokens), got string \"" + std::string(t) + "\"");
      s.d = as_real(s.d, type);
      return s;
    }
    // A BigInt from a JavaScript host arrives as its decimal digits.
    if (!is_integer_text(t)) return mismatch(std::string("expected ") + base_type_name(type) + ", got string \"" + std::string(t) + "\"");
    return integer(t, type);
  }

  // The scalar list just read (raw_) as a Blob. Lists are many and small
  // (a tensor's sizes, an instruction's args): their bytes are copied into
  // shared chunks instead of getting an allocation and a control block
  // each. A list keeps its chunk alive; large lists get their own storage.
  Blob scalar_bytes() {
    constexpr size_t kMaxChunk = 64 * 1024;
    const size_t n = raw_.size();
    if (n == 0) return Blob();
    if (n > kMaxChunk / 8) return Blob::own(std::vector<uint8_t>(raw_.begin(), raw_.end()));
    if (chunk_ == nullptr || chunk_->size() - chunk_used_ < n) {
      // Chunks grow from 4 KiB, so a small program holds little spare.
      const size_t size = chunk_ == nullptr ? 4096 : std::min(kMaxChunk, 2 * chunk_->size());
      chunk_ = std::make_shared<std::vector<uint8_t>>(size);  // never resized: views stay valid
      chunk_used_ = 0;
    }
    uint8_t* at = chunk_->data() + chunk_used_;
    std::memcpy(at, raw_.data(), n);  // copy the list into its chunk
    chunk_used_ += n;
    return Blob::shared(at, n, chunk_);
  }

  // A union value met before its `_type` (upstream's order). Rather than
  // skip it and read it again once the type is known, it is read at once as
  // the member this field held last time (lists of values mostly repeat a
  // type): `guess` says which, 0 if that failed or there was no guess. On
  // any error it is skipped instead, as a value of unknown type always was,
  // so errors come from the skip or the later read exactly as before. Not
  // while already guessing: nested guesses could multiply the work. The
  // guess is read into the field's own slot (`slot`), which a wrong guess
  // leaves for the later read to overwrite.
  Status value_before_type(const FieldDef& f, int& guess, Value& slot, size_t depth) {
    guess = 0;
    const int member = speculating_ ? 0 : last_members_.of(&f);
    if (member > 0) {
      const size_t begin = src_.pos();
      const size_t path_len = path_len_;
      speculating_ = true;
      Status read = table_into(*f.union_def->members[static_cast<size_t>(member)], depth + 1, slot);
      speculating_ = false;
      if (read.ok()) {
        guess = member;
        return {};
      }
      slot = Value();
      path_len_ = path_len;
      src_.seek(begin);
    }
    return skip_value(depth + 1);
  }

  // --- schema values --------------------------------------------------------
  Result<Value> vector(const FieldDef& f, size_t depth) {
    ETP_TRY(src_.begin_array());
    const bool objects = f.element == BaseType::kTable || f.element == BaseType::kString;
    Value::Items items;
    raw_.clear();
    const size_t width = objects ? 0 : scalar_size(f.element);
    if (!objects && width == 0) return mismatch("unsupported vector element type");
    for (size_t i = 0;; ++i) {
      ETP_ASSIGN(bool more, src_.next_item(i == 0));
      if (!more) break;
      push_index(i);
      if (f.element == BaseType::kTable) {
        items.emplace_back();  // read in place: no Value moved per item
        ETP_TRY(table_into(*f.table, depth + 1, items.back()));
      } else if (f.element == BaseType::kString) {
        std::string scratch;
        if (!src_.at_string()) return mismatch("expected a string");
        ETP_ASSIGN(std::string_view sv, src_.string(scratch));
        items.push_back(Value::from_string(std::string(sv)));
      } else {
        ETP_ASSIGN(Scalar sc, scalar(f.element));
        raw_.resize(raw_.size() + width);
        put_scalar(raw_.data() + raw_.size() - width, f.element, sc);
      }
      pop();
    }
    if (objects) return Value::from_items(std::move(items));
    return Value::from_scalars_box(std::allocate_shared<const Blob>(ArenaAllocator<Blob>(arena_), scalar_bytes()));
  }

  Result<Value> field(const FieldDef& f, size_t depth) {
    if (src_.consume_null()) return Value();
    switch (f.type) {
      case BaseType::kString: {
        if (!src_.at_string()) return mismatch("expected a string");
        std::string scratch;
        ETP_ASSIGN(std::string_view sv, src_.string(scratch));
        return Value::from_string(std::string(sv));
      }
      case BaseType::kTable: {
        return table(*f.table, depth + 1);
      }
      case BaseType::kVector:
        if (src_.at_reference() && resolve_blob_ && f.element == BaseType::kUByte) {
          // Bytes by reference: the host's object names them.
          ETP_ASSIGN(Json reference, src_.reference(depth + 1, kMaxDepth));
          auto blob = resolve_blob_(reference);
          if (!blob.ok()) return mismatch(blob.error().message);
          return Value::from_scalars(std::move(blob).value());
        }
        if (!src_.at_array()) return mismatch("expected a list");
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

  // A table, as a Value.
  Result<Value> table(const TableDef& def, size_t depth) {
    Value v;
    ETP_TRY(table_into(def, depth, v));
    return Result<Value>(std::move(v));  // Result(T) takes its value by value: moved, not copied
  }

  // A table into `result` (where it belongs: a field's slot, a list's new
  // item), its box made first and filled in place.
  Status table_into(const TableDef& def, size_t depth, Value& result) {
    if (depth > kMaxDepth) return syntax("nesting deeper than " + std::to_string(kMaxDepth));
    if (!src_.at_object()) return mismatch("expected an object for " + def.name);
    ETP_TRY(src_.begin_object());
    auto box = std::allocate_shared<TableValue>(ArenaAllocator<TableValue>(arena_), &def);
    TableValue& out = *box;
    struct PendingUnion {
      const FieldDef* field = nullptr;
      size_t begin = 0;
      bool has_value = false;
      int type = -1;  // -1 unknown, 0 NONE
      bool has_type = false;
      bool read = false;  // the value was read as soon as it came (type known)
      int guess = 0;      // the member type the value was read as, in its slot (0: none)
    };
    // Tables have one or two unions at most; more would be a schema change
    // (they go to the heap then).
    PendingUnion inline_unions[2];
    size_t inline_count = 0;
    std::vector<PendingUnion> more_unions;
    auto pending = [&](const FieldDef* f) -> PendingUnion& {
      for (size_t i = 0; i < inline_count; ++i)
        if (inline_unions[i].field == f) return inline_unions[i];
      for (auto& u : more_unions)
        if (u.field == f) return u;
      if (inline_count < 2) {
        inline_unions[inline_count].field = f;
        return inline_unions[inline_count++];
      }
      more_unions.emplace_back();
      more_unions.back().field = f;
      return more_unions.back();
    };
    std::string scratch;
    size_t hint = 0;
    for (bool first = true;; first = false) {
      ETP_ASSIGN(bool more, src_.next_member(first));
      if (!more) break;
      std::string_view key_view;
      ETP_ASSIGN(const FieldDef* f, src_.key(def, hint, scratch, key_view));
      if (f == nullptr) {
        std::string key(key_view);
        push_name(&key);
        Error e = mismatch("no field '" + key + "' in table " + def.name);
        pop();
        return e;
      }
      hint = f->id + 1u;
      if (depth == 0 && skip_end_ != 0 && src_.value_pos() == skip_begin_) {
        src_.seek(skip_end_);
        continue;
      }
      push_name(&f->name);
      if (f->type == BaseType::kUType) {
        // `<union>_type`: a member table name, an integer, NONE or null.
        const FieldDef& union_field = def.fields[f->id + 1u];
        PendingUnion& u = pending(&union_field);
        if (u.read) return mismatch("'" + f->name + "' given again after its union value was read");
        u.has_type = true;
        if (src_.consume_null()) {
          u.type = 0;
        } else if (src_.at_string()) {
          std::string name_scratch;
          ETP_ASSIGN(std::string_view name, src_.string(name_scratch));
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
        const bool is_null = src_.consume_null();
        if (!is_null && u.has_type && u.type > 0) {
          // The type came first (upstream's order): read the member now
          // rather than skipping it and coming back.
          ETP_TRY(table_into(*f->union_def->members[static_cast<size_t>(u.type)], depth + 1, out.fields[f->id]));
          out.fields[f->id - 1u] = Value::from_uint(static_cast<uint64_t>(u.type));
          u.read = true;
          u.has_value = false;
        } else if (!is_null) {
          u.has_value = true;
          u.begin = src_.value_pos();
          ETP_TRY(value_before_type(*f, u.guess, out.fields[f->id], depth));
        }
      } else if (is_scalar(f->type)) {
        // Most fields: the scalar straight into its slot (null leaves it
        // absent, as field() would).
        if (!src_.consume_null()) {
          ETP_ASSIGN(Scalar sc, scalar(f->type));
          out.fields[f->id].set_scalar(sc);
        }
      } else if (f->type == BaseType::kTable) {
        // A table field, read into its slot (null: absent, as field() does).
        if (src_.consume_null()) out.fields[f->id] = Value();
        else ETP_TRY(table_into(*f->table, depth + 1, out.fields[f->id]));
      } else {
        ETP_ASSIGN(Value v, field(*f, depth));
        out.fields[f->id] = std::move(v);
      }
      pop();
    }
    for (size_t i = 0; i < inline_count + more_unions.size(); ++i) {
      PendingUnion& u = i < inline_count ? inline_unions[i] : more_unions[i - inline_count];
      if (!u.has_value) continue;
      push_name(&u.field->name);
      if (!u.has_type || u.type <= 0) return mismatch("union value without a member type in '" + u.field->name + "_type'");
      last_members_.remember(u.field, u.type);
      if (u.guess == u.type) {  // already in its slot
        out.fields[u.field->id - 1u] = Value::from_uint(static_cast<uint64_t>(u.type));
        pop();
        continue;
      }
      const size_t resume = src_.pos();
      src_.seek(u.begin);
      ETP_TRY(table_into(*u.field->union_def->members[static_cast<size_t>(u.type)], depth + 1, out.fields[u.field->id]));
      src_.seek(resume);
      out.fields[u.field->id - 1u] = Value::from_uint(static_cast<uint64_t>(u.type));
      pop();
    }
    result = Value::from_box(TableBox(std::move(box)));
    return {};
  }

  Source& src_;
  const BlobResolver& resolve_blob_;
  std::vector<uint8_t> raw_;  // a scalar list being read (never nested)
  std::shared_ptr<std::vector<uint8_t>> chunk_;  // where scalar lists are stored
  size_t chunk_used_ = 0;
  LastUnionMembers<int> last_members_;  // per union field, the member it held last
  bool speculating_ = false;  // reading a union value as a guessed member
  size_t skip_begin_ = 0, skip_end_ = 0;  // skip_root_member()
  BoxArena* arena_;  // the boxes of the tables and scalar lists read (model/box_arena.h)
};


}  // namespace etpack::table_reader
