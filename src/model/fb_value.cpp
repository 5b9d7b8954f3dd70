#include "model/fb_value.h"

#include <type_traits>

#include "core/le_bytes.h"

namespace etpack {

TableBox::TableBox(TableValue t) : ptr_(std::make_shared<TableValue>(std::move(t))) {}

TableValue& TableBox::get_mutable() {
  if (ptr_.use_count() > 1) ptr_ = std::make_shared<TableValue>(*ptr_);  // copy on first write
  return *ptr_;
}

Value Value::from_table(TableValue t) {
  Value x;
  x.emplace<TableBox>(kTable, std::move(t));
  return x;
}

// The one switch over the owned kinds: calls `f` with a null pointer of the
// C++ type `kind` holds (nothing for absent and scalar Values).
template <typename F>
void Value::for_owned_kind(Kind kind, F&& f) {
  switch (kind) {
    case kString: f(static_cast<std::string*>(nullptr)); break;
    case kTable: f(static_cast<TableBox*>(nullptr)); break;
    case kItems: f(static_cast<Items*>(nullptr)); break;
    case kScalars: f(static_cast<ScalarsBox*>(nullptr)); break;
    default: break;
  }
}

void Value::destroy_owned() noexcept {
  for_owned_kind(kind_, [this](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    as<T>(kind_).~T();
  });
}

void Value::copy_owned(const Value& other) {
  for_owned_kind(other.kind_, [&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    emplace<T>(other.kind_, other.as<T>(other.kind_));
  });
}

// The moved-from Value keeps its kind, holding a moved-from object, as a
// moved-from std::variant would.
void Value::move_owned(Value& other) noexcept {
  for_owned_kind(other.kind_, [&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    emplace<T>(other.kind_, std::move(other.as<T>(other.kind_)));
  });
}

FieldSlots::FieldSlots(size_t n) : data_(inline_values()), size_(n) {
  if (n > kInline) data_ = static_cast<Value*>(::operator new(n * sizeof(Value)));
  for (size_t i = 0; i < n; ++i) new (data_ + i) Value();
}

// Constructed first, then assigned: a failing copy is cleaned up by ~FieldSlots.
FieldSlots::FieldSlots(const FieldSlots& other) : FieldSlots(other.size_) {
  for (size_t i = 0; i < size_; ++i) data_[i] = other.data_[i];
}

FieldSlots& FieldSlots::operator=(const FieldSlots& other) {
  if (this != &other) *this = FieldSlots(other);
  return *this;
}

FieldSlots& FieldSlots::operator=(FieldSlots&& other) noexcept {
  if (this != &other) {
    release();
    take(other);
  }
  return *this;
}

// Heap Values change hands as a pointer; inline ones are moved one by one.
void FieldSlots::take(FieldSlots& other) noexcept {
  size_ = other.size_;
  if (other.is_inline()) {
    data_ = inline_values();
    for (size_t i = 0; i < size_; ++i) {
      new (data_ + i) Value(std::move(other.data_[i]));
      other.data_[i].~Value();
    }
  } else {
    data_ = other.data_;
    other.data_ = other.inline_values();
  }
  other.size_ = 0;
}

void FieldSlots::release() noexcept {
  for (size_t i = 0; i < size_; ++i) data_[i].~Value();
  if (!is_inline()) ::operator delete(data_);
  data_ = inline_values();
  size_ = 0;
}

static const Value& empty_value() {
  static const Value kEmpty;
  return kEmpty;
}

const Value& TableValue::get(std::string_view name) const {
  const FieldDef* f = def->find(name);
  return f == nullptr ? empty_value() : fields[f->id];
}

Value& TableValue::at(std::string_view name) {
  const FieldDef* f = def->find(name);
  // Unknown names are programming errors; writing to the last slot of a
  // scratch value keeps this total instead of crashing.
  static thread_local Value scratch;
  if (f == nullptr) return scratch = Value();
  return fields[f->id];
}

int64_t TableValue::get_int(std::string_view name) const {
  const FieldDef* f = def->find(name);
  if (f == nullptr) return 0;
  const Value& v = fields[f->id];
  return v.is_scalar() ? v.scalar().i : f->default_integer;
}

uint64_t TableValue::get_uint(std::string_view name) const {
  const FieldDef* f = def->find(name);
  if (f == nullptr) return 0;
  const Value& v = fields[f->id];
  return v.is_scalar() ? v.scalar().u : static_cast<uint64_t>(f->default_integer);
}

size_t scalar_vector_length(const Value& v, BaseType element) {
  if (!v.is_scalars()) return 0;
  return v.scalars().size() / scalar_size(element);
}

uint64_t scalar_vector_uint(const Value& v, BaseType element, size_t index) {
  const uint8_t* p = v.scalars().data() + index * scalar_size(element);
  switch (scalar_size(element)) {
    case 1: return read_le<uint8_t>(p);
    case 2: return read_le<uint16_t>(p);
    case 4: return read_le<uint32_t>(p);
    default: return read_le<uint64_t>(p);
  }
}

int64_t scalar_vector_int(const Value& v, BaseType element, size_t index) {
  // Only signed elements are sign-extended: a [ubyte] dim_order entry of
  // 200 is 200, not -56. (A ulong above INT64_MAX has no int64 value; it
  // wraps, as the callers that read ulong vectors use scalar_vector_uint.)
  if (!is_signed_integer(element)) return static_cast<int64_t>(scalar_vector_uint(v, element, index));
  const uint8_t* p = v.scalars().data() + index * scalar_size(element);
  switch (scalar_size(element)) {
    case 1: return static_cast<int8_t>(read_le<uint8_t>(p));
    case 2: return static_cast<int16_t>(read_le<uint16_t>(p));
    case 4: return static_cast<int32_t>(read_le<uint32_t>(p));
    default: return static_cast<int64_t>(read_le<uint64_t>(p));
  }
}

Blob make_uint64_vector(const std::vector<uint64_t>& values) {
  std::vector<uint8_t> raw(values.size() * 8);
  for (size_t i = 0; i < values.size(); ++i) write_le<uint64_t>(raw.data() + i * 8, values[i]);
  return Blob::own(std::move(raw));
}

}  // namespace etpack
