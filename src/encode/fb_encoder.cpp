#include "encode/fb_encoder.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "core/checked_math.h"
#include "core/le_bytes.h"
#include "encode/fb_builder.h"

namespace etpack {
namespace {

class Encoder {
 public:
  // `builder`: a builder to continue (holding `prefix`), or null for a new one.
  Encoder(const EncodeOptions& options, FlatBuilder* builder, const EncodedPrefix* prefix)
      : options_(options), own_(builder == nullptr ? options.policy : EncodePolicy::kReferencePython),
        b_(builder == nullptr ? own_ : *builder), prefix_(prefix) {}

  uint32_t encode_table(const TableValue& t) {
    const auto& fields = t.def->fields;
    // This table's child offsets sit at offsets_[base, base + fields):
    // one stack for the whole tree instead of a vector per table. Children
    // push above it, so it is indexed, never referenced, while they run.
    const size_t base = offsets_.size();
    offsets_.resize(base + fields.size(), 0);
    // Children first, in declaration order (both builders meet them so).
    for (const FieldDef& f : fields) {
      const Value& v = t.fields[f.id];
      if (prefix_ != nullptr && &f == prefix_->field) {  // encoded already, first
        offsets_[base + f.id] = prefix_->offset;
        continue;
      }
      if (v.absent()) continue;
      uint32_t child = 0;
      switch (f.type) {
        case BaseType::kString: child = b_.create_string(v.str()); break;
        case BaseType::kTable:
        case BaseType::kUnion: child = encode_table(v.table()); break;
        case BaseType::kVector: child = encode_vector(*t.def, f, v); break;
        default: continue;
      }
      offsets_[base + f.id] = child;
    }
    b_.start_table(fields.size());
    const uint32_t* offsets = offsets_.data() + base;
    if (options_.policy == EncodePolicy::kReferencePython) {
      for (const FieldDef& f : fields) add_field(t, f, offsets);
    } else {
      for (size_t size : {8, 4, 2, 1})
        for (size_t i = fields.size(); i-- > 0;) {
          const FieldDef& f = fields[i];
          size_t field_size = is_scalar(f.type) ? scalar_size(f.type) : 4;
          if (field_size == size) add_field(t, f, offsets);
        }
    }
    offsets_.resize(base);
    // By the table type's address: a collision only costs a search.
    const size_t slot = (reinterpret_cast<uintptr_t>(t.def) / alignof(TableDef)) % kLastVtables;
    return b_.end_table(last_vtables_[slot]);
  }

  FlatBuilder& builder() { return b_; }
  const std::string& unreadable() const { return unreadable_; }

 private:
  uint32_t encode_vector(const TableDef& table, const FieldDef& f, const Value& v) {
    if (v.is_items()) {
      const auto& items = v.items();
      // The children's offsets on the shared stack, like a table's.
      const size_t base = offsets_.size();
      offsets_.reserve(base + items.size());
      for (const Value& item : items) {
        const uint32_t child = item.is_table() ? encode_table(item.table()) : b_.create_string(item.is_string() ? item.str() : "");
        offsets_.push_back(child);
      }
      b_.start_vector(4, items.size(), 4);
      for (size_t i = items.size(); i-- > 0;) b_.prepend_uoffset(offsets_[base + i]);
      offsets_.resize(base);
      return b_.end_vector(items.size());
    }
    const Blob& raw = v.scalars();
    size_t width = scalar_size(f.element);
    size_t count = static_cast<size_t>(raw.size() / width);
    b_.start_vector(width, count, vector_alignment(table, f, options_));
    if (raw.is_external()) {
      // Bytes that live with the host but belong inside the flatbuffer.
      if (!b_.place_blob(raw)) unreadable_ = table.name + "." + f.name;
    } else {
      b_.place_bytes(raw.data(), count * width);
    }
    return b_.end_vector(count);
  }

  void add_field(const TableValue& t, const FieldDef& f, const uint32_t* offsets) {
    const Value& v = t.fields[f.id];
    if (!is_scalar(f.type)) {
      if (offsets[f.id] == 0) return;
      b_.prepend_uoffset(offsets[f.id]);
      b_.slot(f.id);
      return;
    }
    if (!v.is_scalar()) return;  // absent scalars are their default
    add_scalar_field(b_, f, v.scalar(), options_.policy);
  }

  const EncodeOptions& options_;
  FlatBuilder own_;  // unused when continuing a builder
  FlatBuilder& b_;
  const EncodedPrefix* prefix_;
  std::string unreadable_;  // a field whose external bytes could not be read
  std::vector<uint32_t> offsets_;  // child offsets of the tables and lists being encoded
  static constexpr size_t kLastVtables = 64;
  FlatBuilder::LastVtable last_vtables_[kLastVtables];  // by table type (see encode_table)
};

}  // namespace

EncodedPrefix::EncodedPrefix() = default;
EncodedPrefix::EncodedPrefix(EncodedPrefix&&) noexcept = default;
EncodedPrefix& EncodedPrefix::operator=(EncodedPrefix&&) noexcept = default;
EncodedPrefix::~EncodedPrefix() = default;

Result<EncodedFlatbuffer> encode_flatbuffer(const TableValue& root, const std::string& file_identifier,
                                            const EncodeOptions& options, const EncodedPrefix* prefix) {
  if (file_identifier.size() != 4)
    return make_error(ErrorCode::kInvalidArgument, "file identifier must be 4 bytes, got '" + file_identifier + "'");
  for (const auto& [name, align] : options.force_align_overrides)
    if (!is_power_of_two(align))
      return make_error(ErrorCode::kInvalidAlignment, "force_align for " + name + " must be a power of two, got " + std::to_string(align));
  if (prefix != nullptr) {
    // The prefix must be what the Python builder meets first: the root's
    // first child in declaration order, with no other child before it.
    if (prefix->builder == nullptr || options.policy != EncodePolicy::kReferencePython || prefix->field == nullptr ||
        root.def->fields.size() <= prefix->field->id || &root.def->fields[prefix->field->id] != prefix->field)
      return make_error(ErrorCode::kInternal, "encode_flatbuffer: a prefix that is not a field of the root");
    for (const FieldDef& f : root.def->fields)
      if (f.id < prefix->field->id && !is_scalar(f.type) && !root.fields[f.id].absent())
        return make_error(ErrorCode::kInternal, "encode_flatbuffer: root field " + f.name + " precedes the prefix");
  }
  Encoder encoder(options, prefix != nullptr ? prefix->builder.get() : nullptr, prefix);
  uint32_t root_offset = encoder.encode_table(root);
  FlatBuilder& b = encoder.builder();
  b.finish(root_offset, file_identifier);
  if (!encoder.unreadable().empty())
    return make_error(ErrorCode::kIoError, "could not read the external bytes of " + encoder.unreadable());
  if (b.overflowed())
    return make_error(ErrorCode::kLimitExceeded, "flatbuffer would exceed the 2 GiB flatbuffer limit");
  EncodedFlatbuffer out;
  out.max_alignment = b.minalign();
  out.bytes = b.take();
  return out;
}

}  // namespace etpack
