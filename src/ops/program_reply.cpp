#include "ops/program_reply.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>
#include <vector>

#include "ops/reply_text.h"
#include "core/json.h"
#include "core/nan_bits.h"
#include "model/value_json.h"
#include "read/fb_bytes.h"
#include "read/fb_decoder.h"

namespace etpack {
namespace {

constexpr int64_t kMaxSafeInteger = (int64_t{1} << 53) - 1;
// Text per flatbuffer byte before a file is refused: real programs write
// 2-3 bytes of text per byte, a file of all-default tables ~10.
constexpr uint64_t kTextFactor = 16;
constexpr uint64_t kTextAllowance = uint64_t{8} << 20;

// A field with its key as written (`"name":`), in upstream's order.
struct KeyedField {
  const FieldDef* field;
  std::string key;
  std::string type_key;  // a union's `"name_type":`
};

std::vector<KeyedField> keyed_fields(const TableDef& def) {
  std::vector<KeyedField> out;
  for (const FieldDef* f : json_field_order(def)) {
    if (f->type == BaseType::kUType) continue;  // written after its union value
    KeyedField k{f, {}, {}};
    write_json_string(f->name, k.key);
    k.key.push_back(':');
    if (f->type == BaseType::kUnion) {
      write_json_string(f->name + "_type", k.type_key);
      k.type_key.push_back(':');
    }
    out.push_back(std::move(k));
  }
  return out;
}

// Walks the flatbuffer once, appending to the text and the fixup list.
// Recursion follows the schema's nesting (a handful of levels), not the file.
class ReplyWriter {
 public:
  ReplyWriter(const PteProgramBytes& pte, const AddBlob& add_blob, std::string& text, std::string& fixups)
      : pte_(pte), bytes_(pte.flatbuffer.data(), pte.flatbuffer.size(), 0), add_blob_(add_blob),
        limit_(text.size() + bytes_.size() * kTextFactor + kTextAllowance),
        // Most programs write 2-3 bytes of text per flatbuffer byte: one
        // allocation up front instead of a doubling series. Capped: a
        // flatbuffer may be mostly weights, which go by reference.
        t_(text, static_cast<size_t>(std::min<uint64_t>(bytes_.size() * 3, kTextAllowance)) + 4096), f_(fixups),
        schema_(program_schema()), keys_(schema_.tables.size()) {
    program_def_ = schema_.root;
    delegate_def_ = schema_.find_table("BackendDelegate");
    reference_def_ = schema_.find_table("BackendDelegateDataReference");
  }

  Status run() {
    if (bytes_.size() < 8) return bytes_.fail(0, "flatbuffer smaller than its 8-byte preamble");
    ETP_ASSIGN(uint64_t root, bytes_.follow(0));
    if (pte_.restore) ETP_TRY(count_delegate_data(root));
    if (f_.empty()) f_.push_back('[');
    ETP_TRY(table(root, *program_def_, 0));
    f_.push_back(']');
    if (pte_.restore && next_delegate_ != pte_.restored.delegates.size())
      return make_error(ErrorCode::kInternal, "restored delegates do not match the program's");
    return {};
  }

 private:
  struct Step {
    const std::string* name;  // a field, or null for a list index
    size_t index;
  };

  template <typename Int>
  static void append_number(std::string& s, Int v) {
    char buf[24];
    s.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
  }

  const std::vector<KeyedField>& keys(const TableDef& def) {
    std::vector<KeyedField>& k = keys_[static_cast<size_t>(&def - schema_.tables.data())];
    if (k.empty()) k = keyed_fields(def);
    return k;
  }

  Status over_budget(uint64_t at) const {
    return make_error(ErrorCode::kResourceLimit,
                      "the program would be more than " + std::to_string(limit_ >> 20) + " MiB of JSON text (" +
                          std::to_string(kTextFactor) + " x its " + std::to_string(bytes_.size()) + " bytes + " +
                          std::to_string(kTextAllowance >> 20) +
                          " MiB): its offsets reach the same tables or vectors from many places; budget exceeded at "
                          "byte offset " + std::to_string(at));
  }

  // `null` in the text, and [kind, value, ...path(, last)] in the list.
  template <typename WriteValue>
  void fixup(int kind, WriteValue write_value, const size_t* last = nullptr) {
    t_ += "null";
    if (checking_) return;  // a value restoring replaces: dropped
    if (f_.size() > 1) f_.push_back(',');
    f_.push_back('[');
    f_.push_back(static_cast<char>('0' + kind));
    f_.push_back(',');
    write_value(f_);
    for (const Step& s : path_) {
      f_.push_back(',');
      if (s.name) write_json_string(*s.name, f_);
      else append_number(f_, s.index);
    }
    if (last) {
      f_.push_back(',');
      append_number(f_, *last);
    }
    f_.push_back(']');
  }

  // `index` is the element's index when in a vector.
  void scalar(Scalar s, BaseType type, const size_t* index) {
    switch (type) {
      case BaseType::kBool: t_ += s.u != 0 ? "true" : "false"; return;
      case BaseType::kFloat:
      case BaseType::kDouble:
        // As table_to_json: a Double's infinity is upstream's "inf"/"-inf".
        if (!index && std::isinf(s.d)) {
          t_ += s.d > 0 ? "\"inf\"" : "\"-inf\"";
        } else if (auto hex = noncanonical_nan_hex(s.d)) {
          // A NaN other than the canonical one keeps its bits (core/nan_bits.h).
          fixup(2, [&](std::string& f) { f += "\"B" + *hex + "\""; }, index);
        } else if (!std::isfinite(s.d)) {
          const char* token = std::isnan(s.d) ? "\"NaN\"" : s.d > 0 ? "\"Infinity\"" : "\"-Infinity\"";
          fixup(2, [&](std::string& f) { f += token; }, index);
        } else {
          t_ += std::string_view(python_float_repr(s.d));
        }
        return;
      default:
        if (is_signed_integer(type)) {
          if (s.i > kMaxSafeInteger || s.i < -kMaxSafeInteger) {
            fixup(1, [&](std::string& f) { f.push_back('"'); append_number(f, s.i); f.push_back('"'); }, index);
          } else {
            t_.append_integer(s.i);
          }
        } else if (s.u > static_cast<uint64_t>(kMaxSafeInteger)) {
          fixup(1, [&](std::string& f) { f.push_back('"'); append_number(f, s.u); f.push_back('"'); }, index);
        } else {
          t_.append_integer(s.u);
        }
    }
  }

  // A name needing no escape (nearly all) goes from the file to the text as is.
  void string(std::string_view s) {
    const auto plain = [](char c) { return static_cast<unsigned char>(c) >= 0x20 && c != '"' && c != '\\'; };
    if (std::all_of(s.begin(), s.end(), plain)) {
      ((t_ += "\"") += s) += "\"";
    } else {
      scratch_.clear();
      write_json_string(std::string(s), scratch_);
      t_ += std::string_view(scratch_);
    }
  }

  void blob(const Blob& bytes) {
    if (checking_) {
      t_ += "null";
      return;
    }
    const size_t index = add_blob_(bytes);
    fixup(0, [&](std::string& s) { append_number(s, index); });
  }

  Status vector(uint64_t at, const TableDef& def, const FieldDef& f, size_t depth) {
    ETP_ASSIGN(FbVector v, bytes_.vector(at, def, f));
    // Weights and blobs go back by reference (slices of the file); small
    // structural byte lists (dim_order) stay plain number lists.
    if (f.element == BaseType::kUByte && f.name != "dim_order") {
      blob(pte_.flatbuffer.slice(v.first, v.count));
      return {};
    }
    t_.push_back('[');
    if (is_scalar(f.element)) {
      const uint8_t* data = bytes_.data() + v.first;
      for (size_t n = 0; n < v.count; ++n) {
        if (n) t_.push_back(',');
        scalar(get_scalar(data + n * v.width, f.element), f.element, &n);
      }
    } else {
      for (size_t n = 0; n < v.count; ++n) {
        if (n) t_.push_back(',');
        const uint64_t elem = v.first + 4 * n;
        if (f.element == BaseType::kString) {
          ETP_ASSIGN(std::string_view s, bytes_.string(elem));
          string(s);
        } else {
          ETP_ASSIGN(uint64_t child, bytes_.follow(elem));
          path_.push_back({nullptr, n});
          ETP_TRY(table(child, *f.table, depth + 1));
          path_.pop_back();
        }
      }
    }
    t_.push_back(']');
    if (t_.size() > limit_) return over_budget(at);
    return {};
  }

  Status table(uint64_t pos, const TableDef& def, size_t depth) {
    if (depth > 64)
      return make_error(ErrorCode::kLimitExceeded, "flatbuffer nesting deeper than 64 at byte offset " + std::to_string(pos));
    if (t_.size() > limit_) return over_budget(pos);
    ETP_ASSIGN(FbTable tab, bytes_.table(pos, def));
    const bool restoring_program = pte_.restore && depth == 0 && &def == program_def_;
    const bool restoring_delegate = pte_.restore && &def == delegate_def_;
    t_.push_back('{');
    bool first = true;
    for (const KeyedField& k : keys(def)) {
      const FieldDef& f = *k.field;
      if (!first) t_.push_back(',');
      first = false;
      t_ += std::string_view(k.key);
      ETP_ASSIGN(uint64_t at, bytes_.field(tab, def, f));
      path_.push_back({&f.name, 0});
      bool replace = false;
      if (restoring_program) {
        ETP_ASSIGN(replace, replaced_program_field(f, at));
      } else if (restoring_delegate && f.name == "processed" && at != 0) {
        ETP_ASSIGN(replace, replaced_processed(at));
      }
      const size_t mark = t_.size();
      // A value that restoring replaces is still walked (and then dropped):
      // its bytes get the same checks as everywhere, as when the model
      // decoded them.
      if (replace) ++checking_;
      Status written = value(k, tab, def, at, depth);
      if (replace) --checking_;
      ETP_TRY(std::move(written));
      if (replace) {
        t_.truncate(mark);
        ETP_TRY(replacement(f, at));
      } else if (restoring_program && f.name == "backend_delegate_data" && !pte_.restored.delegates.empty()) {
        append_delegate_data(at, mark);
      }
      path_.pop_back();
    }
    t_.push_back('}');
    return {};
  }

  // Field `k`'s value (a union's followed by its `_type` key and name).
  Status value(const KeyedField& k, const FbTable& tab, const TableDef& def, uint64_t at, size_t depth) {
    const FieldDef& f = *k.field;
    switch (f.type) {
      case BaseType::kUnion: {
        ETP_ASSIGN(const TableDef* member, union_member(tab, def, f, at));
        if (member) {
          ETP_ASSIGN(uint64_t child, bytes_.follow(at));
          ETP_TRY(table(child, *member, depth + 1));
        } else {
          t_ += "null";
        }
        t_.push_back(',');
        t_ += std::string_view(k.type_key);
        if (member) string(member->name);
        else t_ += "null";
        return {};
      }
      case BaseType::kString:
        if (at == 0) {
          t_ += "null";
        } else {
          ETP_ASSIGN(std::string_view s, bytes_.string(at));
          string(s);
        }
        return {};
      case BaseType::kTable:
        if (at == 0) {
          t_ += "null";
          return {};
        } else {
          ETP_ASSIGN(uint64_t child, bytes_.follow(at));
          return table(child, *f.table, depth + 1);
        }
      case BaseType::kVector:
        if (at == 0) {
          t_ += "null";
          return {};
        }
        return vector(at, def, f, depth);
      default: {
        Scalar s;
        if (at != 0) s = get_scalar(bytes_.data() + at, f.type);
        else if (f.type == BaseType::kDouble || f.type == BaseType::kFloat) s.d = f.default_real;
        else s.i = f.default_integer;
        scalar(s, f.type, nullptr);
        return {};
      }
    }
  }

  // A union's member table, or null when the table holds no value.
  Result<const TableDef*> union_member(const FbTable& tab, const TableDef& def, const FieldDef& f, uint64_t at) {
    const FieldDef& type_field = def.fields[f.id - 1u];
    ETP_ASSIGN(uint64_t type_at, bytes_.field(tab, def, type_field));
    const uint64_t type = type_at == 0 ? 0 : bytes_.data()[type_at];
    if (at == 0 || type == 0) return nullptr;
    if (type >= f.union_def->members.size() || f.union_def->members[type] == nullptr)
      return bytes_.fail(tab.pos, def.name + "." + f.name + "_type " + std::to_string(type) + " is not a member of " +
                                      f.union_def->name);
    return f.union_def->members[type];
  }

  // Segment restoring (read/pte_reader.h): whether restoring replaces
  // this field of the Program.
  Result<bool> replaced_program_field(const FieldDef& f, uint64_t at) const {
    const PteRestored& r = pte_.restored;
    if (f.name == "constant_buffer" || f.name == "constant_segment") return r.constants.has_value();
    if (f.name == "mutable_data_segments") return r.mutable_data.has_value();
    if (f.name == "segments" || f.name == "named_data") return at != 0;
    return false;
  }

  // Whether a delegate's processed data was in a segment.
  Result<bool> replaced_processed(uint64_t at) const {
    const TableDef& ref_def = *reference_def_;
    ETP_ASSIGN(uint64_t child, bytes_.follow(at));
    ETP_ASSIGN(FbTable ref, bytes_.table(child, ref_def));
    ETP_ASSIGN(uint64_t location_at, bytes_.field(ref, ref_def, *ref_def.find("location")));
    return location_at != 0 && bytes_.data()[location_at] == 1;
  }

  // What restoring makes of a replaced field.
  Status replacement(const FieldDef& f, uint64_t at) {
    const PteRestored& r = pte_.restored;
    if (f.name == "constant_buffer") {
      t_.push_back('[');
      for (size_t i = 0; i < r.constants->size(); ++i) {
        if (i) t_.push_back(',');
        path_.push_back({nullptr, i});
        t_ += "{\"storage\":";
        path_.push_back({&kStorage, 0});
        blob((*r.constants)[i]);
        path_.pop_back();
        t_.push_back('}');
        path_.pop_back();
      }
      t_.push_back(']');
    } else if (f.name == "constant_segment") {
      t_ += "{\"segment_index\":0,\"offsets\":[]}";
    } else if (f.name == "mutable_data_segments") {
      t_ += "null";
    } else if (f.name == "segments" || f.name == "named_data") {
      t_ += "[]";  // emptied, as before serialization
    } else {
      // A delegate's processed data: now its backend_delegate_data entry
      // (appended after the file's own).
      if (next_delegate_ >= r.delegates.size())
        return make_error(ErrorCode::kInternal, "restored delegates do not match the program's (at byte offset " +
                                                    std::to_string(at) + ")");
      t_ += "{\"location\":0,\"index\":";
      t_.append_integer(delegate_data_count_ + next_delegate_++);
      t_.push_back('}');
    }
    return {};
  }

  // backend_delegate_data as written from the file (from `mark`), plus an
  // entry for each delegate restored from a segment.
  void append_delegate_data(uint64_t at, size_t mark) {
    if (at == 0) {
      t_.truncate(mark);  // the file had none: its `null` becomes the list
      t_.push_back('[');
    } else {
      t_.truncate(t_.size() - 1);  // reopen the file's list
    }
    size_t i = static_cast<size_t>(delegate_data_count_);
    for (const Blob& data : pte_.restored.delegates) {
      if (i) t_.push_back(',');
      path_.push_back({nullptr, i++});
      t_ += "{\"data\":";
      path_.push_back({&kData, 0});
      blob(data);
      path_.pop_back();
      t_.push_back('}');
      path_.pop_back();
    }
    t_.push_back(']');
  }

  // The length of the file's own backend_delegate_data.
  Status count_delegate_data(uint64_t root) {
    const FieldDef& f = *program_def_->find("backend_delegate_data");
    ETP_ASSIGN(FbTable tab, bytes_.table(root, *program_def_));
    ETP_ASSIGN(uint64_t at, bytes_.field(tab, *program_def_, f));
    if (at == 0) return {};
    ETP_ASSIGN(FbVector v, bytes_.vector(at, *program_def_, f));
    delegate_data_count_ = v.count;
    return {};
  }

  static const std::string kStorage;
  static const std::string kData;

  const PteProgramBytes& pte_;
  FbBytes bytes_;
  const AddBlob& add_blob_;
  uint64_t limit_;
  Text t_;
  std::string& f_;
  std::string scratch_;
  const Schema& schema_;
  std::vector<std::vector<KeyedField>> keys_;  // by table index in the schema
  const TableDef* program_def_;
  const TableDef* delegate_def_;
  const TableDef* reference_def_;
  int checking_ = 0;  // > 0 while walking a value that restoring replaces
  uint64_t delegate_data_count_ = 0;
  size_t next_delegate_ = 0;
  std::vector<Step> path_;
};

const std::string ReplyWriter::kStorage = "storage";
const std::string ReplyWriter::kData = "data";

}  // namespace

Status write_program_reply(const PteProgramBytes& pte, const AddBlob& add_blob, std::string& text, std::string& fixups) {
  const size_t text_start = text.size();
  const size_t fixups_start = fixups.size();
  Status written = ReplyWriter(pte, add_blob, text, fixups).run();
  if (written.ok()) return written;
  // The decoder's verdict on the same bytes, so that every file gets the
  // same error from deserialize as from validate or inspect.
  text.resize(text_start);
  fixups.resize(fixups_start);
  if (auto decoded = decode_flatbuffer(pte.flatbuffer, *program_schema().root); !decoded.ok()) return decoded.take_error();
  return written;
}

}  // namespace etpack
