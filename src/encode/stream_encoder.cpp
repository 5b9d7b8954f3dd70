#include "encode/stream_encoder.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <memory>
#include <vector>

#include "core/nan_bits.h"
#include "core/value_stream.h"
#include "encode/fb_builder.h"
#include "model/table_reader_scalars.h"
#include "schema/last_union_members.h"

namespace etpack {
namespace {

// Below the model reader's limit (table_reader::kMaxDepth), so whatever
// depth is taken here, the reader takes too.
constexpr size_t kMaxStreamDepth = 64;

// Each member of a table being encoded: unset, given as null, a scalar, or
// a child already placed in the builder.
struct Slot {
  enum State : uint8_t { kUnset, kNull, kScalar, kChild };
  Scalar scalar{};
  uint32_t child = 0;
  State state = kUnset;
};

// Every method returns false for "not here: take the model route".
class StreamEncoder : table_reader::ScalarRules {
 public:
  StreamEncoder(std::string_view bytes, FlatBuilder& b, const EncodeOptions& options)
      : in_(bytes), b_(b), options_(options) {}

  ValueStream& in() { return in_; }
  const TableDef* counted_def = nullptr;
  size_t counted = 0;

  // A list field's value: the items (tables or strings) placed first, in
  // order, then the list of their offsets; or the scalars' bytes.
  bool vector(const TableDef& table, const FieldDef& f, size_t depth, uint32_t& offset) {
    if (depth > kMaxStreamDepth || !in_.consume(StreamTag::kArray)) return false;
    if (f.element == BaseType::kTable || f.element == BaseType::kString) {
      const size_t base = offsets_.size();
      while (!in_.consume(StreamTag::kEnd)) {
        uint32_t child = 0;
        if (f.element == BaseType::kTable ? !this->table(*f.table, depth + 1, child) : !string(child)) return false;
        offsets_.push_back(child);
      }
      const size_t count = offsets_.size() - base;
      b_.start_vector(4, count, 4);
      for (size_t i = count; i-- > 0;) b_.prepend_uoffset(offsets_[base + i]);
      offsets_.resize(base);
      offset = b_.end_vector(count);
      return true;
    }
    // No force_align inside the plans (the .pte writer's overrides are for
    // root-level lists): one there would take the model route.
    if (!scalar_traits(f.element).is_scalar || f.element == BaseType::kUType || f.force_align != 0) return false;
    const size_t width = scalar_traits(f.element).size;
    if (width == 0) return false;
    // Lists of scalars do not nest: one buffer serves all, grown (never
    // shrunk) ahead of the bytes written.
    size_t used = 0;
    while (!in_.consume(StreamTag::kEnd)) {
      Scalar s;
      if (!scalar(f.element, s)) return false;
      if (raw_.size() < used + width) raw_.resize(2 * (used + width) + 64);
      put_scalar(raw_.data() + used, f.element, s);
      used += width;
    }
    const size_t count = used / width;
    b_.start_vector(width, count, vector_alignment(table, f, options_));
    b_.place_bytes(raw_.data(), used);
    offset = b_.end_vector(count);
    return true;
  }

  // A table: its children placed as they come (they must come in
  // declaration order, as the builder meets them), its scalars kept in
  // slots, then the table itself, fields in declaration order.
  bool table(const TableDef& def, size_t depth, uint32_t& offset) {
    if (depth > kMaxStreamDepth || def.is_struct || !in_.consume(StreamTag::kObject)) return false;
    if (&def == counted_def) ++counted;  // a guess taken back may count twice: "at least"
    const size_t n = def.fields.size();
    const size_t base = slots_.size();
    slots_.resize(base + n);  // new slots are unset; indexed, never referenced across a child
    size_t next_child = 0;    // children before this id are done
    const FieldDef* guessed = nullptr;  // a union whose value was read as a guessed member
    Guess guess_state;
    while (!in_.consume(StreamTag::kEnd)) {
      const FieldDef* f = key(def);
      if (f == nullptr || slots_[base + f->id].state != Slot::kUnset) return false;  // unknown, or given twice
      slots_[base + f->id].state = Slot::kNull;
      const bool utype = f->type == BaseType::kUType;
      if (in_.consume(StreamTag::kNull)) {
        if (utype || f->type == BaseType::kUnion) return false;
        continue;  // absent, as the reader leaves it
      }
      Scalar s{};
      if (utype || scalar_traits(f->type).is_scalar) {
        if (utype ? !union_type(*f, s) : !scalar(f->type, s)) return false;
        slots_[base + f->id].scalar = s;
        slots_[base + f->id].state = Slot::kScalar;
        continue;
      }
      if (f->id < next_child) return false;  // out of declaration order
      next_child = f->id + 1u;
      uint32_t child = 0;
      switch (f->type) {
        case BaseType::kString:
          if (!string(child)) return false;
          break;
        case BaseType::kTable:
          if (!table(*f->table, depth + 1, child)) return false;
          break;
        case BaseType::kVector:
          if (!vector(def, *f, depth + 1, child)) return false;
          break;
        case BaseType::kUnion: {
          // Its type: given before it; or guessed, checked at the end; or
          // read ahead in this object.
          const Slot& type_slot = slots_[base + f->id - 1u];
          if (type_slot.state == Slot::kScalar) {
            s = type_slot.scalar;
          } else if (guessed == nullptr && guess(*f, depth, guess_state, child)) {
            guessed = f;
            break;
          } else if (!type_ahead(def, *f, depth, s)) {
            return false;
          }
          if (!table(*f->union_def->members[static_cast<size_t>(s.u)], depth + 1, child)) return false;
          break;
        }
        default: return false;
      }
      slots_[base + f->id].child = child;
      slots_[base + f->id].state = Slot::kChild;
    }
    // A union's type without its value: the reader leaves both absent; not here.
    for (const FieldDef& f : def.fields) {
      if (f.type != BaseType::kUnion) continue;
      const Slot& type = slots_[base + f.id - 1u];
      if ((type.state == Slot::kScalar) != (slots_[base + f.id].state == Slot::kChild)) return false;
      if (type.state == Slot::kScalar) last_members_.remember(&f, type.scalar.u);
    }
    if (guessed != nullptr && slots_[base + guessed->id - 1u].scalar.u != guess_state.type) {
      // A wrong guess: taken back and read again as its type, unless a
      // later child was placed after it.
      if (next_child != guessed->id + 1u) return false;
      const size_t end = in_.pos();
      undo(guess_state);
      uint32_t child = 0;
      const TableDef& member = *guessed->union_def->members[static_cast<size_t>(slots_[base + guessed->id - 1u].scalar.u)];
      if (!table(member, depth + 1, child)) return false;
      slots_[base + guessed->id].child = child;
      in_.seek(end);
    }
    b_.start_table(n);
    for (const FieldDef& f : def.fields) {
      const Slot& slot = slots_[base + f.id];
      if (slot.state == Slot::kChild) {
        b_.prepend_uoffset(slot.child);
        b_.slot(f.id);
      } else if (slot.state == Slot::kScalar) {
        add_scalar_field(b_, f, slot.scalar, EncodePolicy::kReferencePython);
      }
    }
    slots_.resize(base);
    offset = b_.end_table(last_vtables_[(reinterpret_cast<uintptr_t>(&def) / alignof(TableDef)) % kLastVtables]);
    return true;
  }

 private:
  // The member's field, matched once per key and table type.
  const FieldDef* key(const TableDef& def) {
    std::string_view name;
    Result<uint32_t> id = in_.key(name);
    if (!id.ok()) return nullptr;
    if (*id >= keys_.size()) keys_.resize(*id + 1u);
    Match& m = keys_[*id];
    if (m.def != &def) m = {&def, def.find(name)};
    return m.field;
  }

  bool string(uint32_t& offset) {
    if (!in_.consume(StreamTag::kString)) return false;
    Result<std::string_view> text = in_.text();
    if (!text.ok()) return false;
    offset = b_.create_string(text->data(), text->size());
    return true;
  }

  // As the reader's scalar(): the same conversions, fewer forms.
  bool scalar(BaseType type, Scalar& s) {
    s.u = 0;
    const bool real = type == BaseType::kFloat || type == BaseType::kDouble;
    int64_t v = 0;
    if (in_.next_int32(v)) {
      if (real) s.d = as_real(static_cast<double>(v), type);
      return real || fits(v, type, s);
    }
    switch (in_.peek()) {
      case StreamTag::kDouble: {
        in_.consume(StreamTag::kDouble);
        Result<double> d = in_.real();
        if (!d.ok()) return false;
        if (real) {
          s.d = as_real(*d, type);
          return true;
        }
        // An integral Number in the safe range (not -0), as the reader's
        // double_as_integer takes it.
        if (!std::isfinite(*d) || *d != std::trunc(*d) || std::fabs(*d) > 9007199254740991.0 || (*d == 0 && std::signbit(*d)))
          return false;
        return fits(static_cast<int64_t>(*d), type, s);
      }
      case StreamTag::kString: {
        in_.consume(StreamTag::kString);
        Result<std::string_view> text = in_.text();
        return text.ok() && scalar_text(*text, type, real, s);
      }
      case StreamTag::kTrue:
      case StreamTag::kFalse:
        if (real) return false;
        s.u = in_.peek() == StreamTag::kTrue ? 1 : 0;
        in_.seek(in_.pos() + 1);
        return true;
      default: return false;
    }
  }
  // A scalar given as a string, as the reader takes it: a real Number's
  // digits (marked "\0N"), NaN bits, upstream's "inf"/"-inf", a BigInt's digits.
  bool scalar_text(std::string_view t, BaseType type, bool real, Scalar& s) {
    if (t.size() > 1 && t[0] == '\0' && t[1] == 'N') {
      if (!real) return false;  // an unsafe integer: an error there
      s.d = std::strtod(std::string(t.substr(2)).c_str(), nullptr);
      return true;
    }
    if (real) {
      if (auto nan = double_of_nan_marker(t)) s.d = *nan;
      else if (t == "inf") s.d = std::numeric_limits<double>::infinity();
      else if (t == "-inf") s.d = -std::numeric_limits<double>::infinity();
      else return false;
      s.d = as_real(s.d, type);
      return true;
    }
    if (!is_integer_text(t)) return false;
    Result<Scalar> r = integer(t, type);
    if (!r.ok()) return false;
    s = *r;
    return true;
  }

  // The reader's integer_value() range check (what fails it is an error there).
  static bool fits(int64_t v, BaseType type, Scalar& s) {
    const ScalarTraits& traits = scalar_traits(type);
    const int bits = traits.size * 8;
    s.i = v;
    if (traits.is_signed) return bits == 64 || (v >= -(int64_t{1} << (bits - 1)) && v < (int64_t{1} << (bits - 1)));
    return v >= 0 && (type != BaseType::kBool || v <= 1) && (bits == 64 || static_cast<uint64_t>(v) < (uint64_t{1} << bits));
  }

  // A `<union>_type` value: a member's name or number, not NONE.
  bool union_type(const FieldDef& f, Scalar& s) {
    const std::vector<const TableDef*>& members = f.union_def->members;
    if (in_.consume(StreamTag::kString)) {
      Result<std::string_view> name = in_.text();
      if (!name.ok()) return false;
      const int type = f.union_def->type_of(*name);
      s.u = type > 0 ? static_cast<uint64_t>(type) : 0;
    } else if (!scalar(BaseType::kUType, s)) {
      return false;
    }
    return s.u > 0 && s.u < members.size() && members[s.u] != nullptr;
  }

  // A union value met before its type, placed at once as the member this
  // field held last time (lists of values mostly repeat a type), as the
  // reader guesses. Not while guessing already (nested guesses could
  // multiply the work). On a "no" everything it placed is taken back.
  struct Guess {
    FlatBuilder::Mark mark;
    size_t pos = 0, slots = 0, offsets = 0;
    uint64_t type = 0;
  };
  bool guess(const FieldDef& f, size_t depth, Guess& g, uint32_t& child) {
    g.type = speculating_ ? 0 : last_members_.of(&f);
    if (g.type == 0) return false;
    g.mark = b_.mark();
    g.pos = in_.pos();
    g.slots = slots_.size();
    g.offsets = offsets_.size();
    speculating_ = true;
    const bool placed = table(*f.union_def->members[static_cast<size_t>(g.type)], depth + 1, child);
    speculating_ = false;
    if (!placed) undo(g);
    return placed;
  }
  void undo(const Guess& g) {
    b_.rollback(g.mark);
    in_.seek(g.pos);
    slots_.resize(g.slots);
    offsets_.resize(g.offsets);
    for (FlatBuilder::LastVtable& last : last_vtables_) last = {};  // they may name vtables taken back
  }

  // The type of union `f` whose value comes next, from its `_type` member
  // later in the same object; the stream is left where it was.
  bool type_ahead(const TableDef& def, const FieldDef& f, size_t depth, Scalar& s) {
    const size_t back = in_.pos();
    bool found = false;
    if (in_.skip_value(depth + 1, table_reader::kMaxDepth).ok()) {
      while (!found && !in_.consume(StreamTag::kEnd)) {
        const FieldDef* g = key(def);
        if (g == nullptr) break;
        if (g->id + 1u == f.id) found = union_type(*g, s);
        else if (!in_.skip_value(depth + 1, table_reader::kMaxDepth).ok()) break;
        if (g->id + 1u == f.id && !found) break;
      }
    }
    in_.seek(back);
    return found;
  }

  struct Match {
    const TableDef* def = nullptr;
    const FieldDef* field = nullptr;
  };
  ValueStream in_;
  FlatBuilder& b_;
  const EncodeOptions& options_;
  std::vector<Slot> slots_;         // the tables being encoded, innermost last
  std::vector<uint32_t> offsets_;   // the items of the lists being encoded
  std::vector<uint8_t> raw_;        // a scalar list being encoded
  std::vector<Match> keys_;         // by key id
  LastUnionMembers<uint64_t> last_members_;  // per union field, its last member type
  bool speculating_ = false;        // placing a guessed union member
  static constexpr size_t kLastVtables = 64;
  FlatBuilder::LastVtable last_vtables_[kLastVtables];  // by table type, as the model encoder keeps them
};

}  // namespace

std::optional<StreamPrefix> encode_stream_prefix(std::string_view bytes, const TableDef& root, const FieldDef& field,
                                                 const EncodeOptions& options, const TableDef* counted) {
  if (options.policy != EncodePolicy::kReferencePython || field.type != BaseType::kVector || field.element != BaseType::kTable ||
      root.fields.size() <= field.id || &root.fields[field.id] != &field)
    return std::nullopt;
  auto builder = std::make_unique<FlatBuilder>(EncodePolicy::kReferencePython);
  StreamEncoder encoder(bytes, *builder, options);
  encoder.counted_def = counted;
  ValueStream& in = encoder.in();
  if (!in.begin().ok() || !in.consume(StreamTag::kObject)) return std::nullopt;
  StreamPrefix out;
  bool found = false;
  while (!in.consume(StreamTag::kEnd)) {
    std::string_view name;
    if (!in.key(name).ok()) return std::nullopt;
    if (name == field.name) {
      if (found) return std::nullopt;  // given twice: the reader keeps the last
      found = true;
      out.value_begin = in.pos();
      if (!encoder.vector(root, field, 1, out.encoded.offset)) return std::nullopt;
      out.value_end = in.pos();
    } else if (!in.skip_value(1, table_reader::kMaxDepth).ok()) {
      return std::nullopt;
    }
  }
  if (!found || !in.at_end() || builder->overflowed()) return std::nullopt;
  out.keys = in.keys();
  out.counted = encoder.counted;
  out.encoded.builder = std::move(builder);
  out.encoded.field = &field;
  return out;
}

}  // namespace etpack
