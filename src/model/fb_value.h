// A schema-typed, in-memory flatbuffer object tree: the program model.
// TableValue holds one Value per schema field (indexed by field id). Byte and
// scalar vectors are Blobs of little-endian elements, so constant data read
// from a file or handed in by a caller is referenced, not copied; copying a
// tree copies metadata only.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <new>
#include <utility>
#include <vector>

#include "core/blob.h"
#include "schema/enums.h"
#include "schema/schema.h"

namespace etpack {

struct TableValue;

// Copy-on-write owner of a TableValue: copying a tree shares its tables,
// and the first write through a shared box gives that box its own copy. So
// "copy the program, then change a few fields" costs only what changes.
class TableBox {
 public:
  TableBox() = default;
  explicit TableBox(TableValue t);
  explicit TableBox(std::shared_ptr<TableValue> t) : ptr_(std::move(t)) {}  // `t` must not be null
  const TableValue& get() const { return *ptr_; }
  TableValue& get_mutable();

 private:
  std::shared_ptr<TableValue> ptr_;
};

union Scalar {
  int64_t i;   // signed integer fields
  uint64_t u;  // unsigned integers, bool, union type
  double d;    // float and double
};

namespace detail {
constexpr size_t max_of(std::initializer_list<size_t> sizes) {
  size_t m = 0;
  for (size_t s : sizes) m = s > m ? s : m;
  return m;
}
}  // namespace detail

// One field's value. A hand-rolled tagged union rather than std::variant:
// a program has millions of Values, most of them absent or scalars, and
// std::variant's copy, move and destruction go through an indirect call per
// Value whatever it holds (about a tenth of serialize time in a profile).
// Here absent and scalar Values are copied, moved and destroyed as plain
// bytes, and only strings, tables and vectors take the switch. The payload
// is stored at 4-byte alignment (scalars through memcpy), so in wasm a
// Value is 16 bytes, not std::variant's 24.
class Value {
 public:
  using Items = std::vector<Value>;  // vector of tables or strings

  // The scalar bytes start zeroed so that copying an absent Value as plain
  // bytes never reads indeterminate memory.
  Value() noexcept : kind_(kAbsent) { std::memset(raw_, 0, sizeof(Scalar)); }
  Value(const Value& other) : Value() {
    if (other.kind_ <= kScalar) copy_plain(other); else copy_owned(other);
  }
  Value(Value&& other) noexcept : Value() {
    if (other.kind_ <= kScalar) copy_plain(other); else move_owned(other);
  }
  // Assignment reads `other` in full before releasing what this Value holds,
  // so `other` may live inside it (v = v.items()[0]). An absent or scalar
  // Value holds nothing `other` could live in: it takes `other` directly
  // (filling a new table's slots, the common case, moves each Value once).
  Value& operator=(const Value& other) {
    if (other.kind_ <= kScalar) {
      assign_plain(other);
    } else if (kind_ <= kScalar) {
      copy_owned(other);
    } else if (this != &other) {
      Value copy(other);
      reset();
      move_owned(copy);
    }
    return *this;
  }
  Value& operator=(Value&& other) noexcept {
    if (other.kind_ <= kScalar) {
      assign_plain(other);
    } else if (kind_ <= kScalar) {
      move_owned(other);
    } else if (this != &other) {
      Value moved(std::move(other));
      reset();
      move_owned(moved);
    }
    return *this;
  }
  ~Value() { reset(); }

  static Value from_int(int64_t v) { Scalar s; s.i = v; return from_scalar(s); }
  static Value from_uint(uint64_t v) { Scalar s; s.u = v; return from_scalar(s); }
  static Value from_double(double v) { Scalar s; s.d = v; return from_scalar(s); }
  static Value from_string(std::string v) { Value x; x.emplace<std::string>(kString, std::move(v)); return x; }
  static Value from_table(TableValue t);
  // Shares `box`'s table (copy-on-write: a later write unshares it).
  static Value from_box(TableBox box) { Value x; x.emplace<TableBox>(kTable, std::move(box)); return x; }
  static Value from_items(Items items) { Value x; x.emplace<Items>(kItems, std::move(items)); return x; }
  static Value from_scalars(Blob raw) { return from_scalars_box(std::make_shared<const Blob>(std::move(raw))); }
  // A boxed Blob as it is (a reader's box from its arena); `box` must not be null.
  static Value from_scalars_box(std::shared_ptr<const Blob> box) {
    Value x;
    x.emplace<ScalarsBox>(kScalars, std::move(box));
    return x;
  }

  // The same as `*this = from_int/from_uint/from_double(...)`, in place.
  void set_scalar(Scalar s) {
    reset();
    store_scalar(s);
  }

  bool absent() const { return kind_ == kAbsent; }
  bool is_scalar() const { return kind_ == kScalar; }
  bool is_string() const { return kind_ == kString; }
  bool is_table() const { return kind_ == kTable; }
  bool is_items() const { return kind_ == kItems; }
  bool is_scalars() const { return kind_ == kScalars; }

  // Reading a kind the Value does not hold is a programming error (callers
  // test the kind first), and stops the program as std::get would.
  Scalar scalar() const {
    check(kScalar);
    Scalar s;
    std::memcpy(&s, raw_, sizeof s);
    return s;
  }
  const std::string& str() const { return as<std::string>(kString); }
  const TableValue& table() const { return as<TableBox>(kTable).get(); }
  TableValue& table() { return as<TableBox>(kTable).get_mutable(); }  // unshares first
  const Items& items() const { return as<Items>(kItems); }
  Items& items() { return as<Items>(kItems); }
  const Blob& scalars() const { return *as<ScalarsBox>(kScalars); }

 private:
  // A Blob is several shared pointers wide; boxed, it no longer sets the
  // size of every Value (a program has millions, most of them scalars or
  // absent), which makes a program model about half as big. Blobs are
  // immutable, so copies share the box.
  using ScalarsBox = std::shared_ptr<const Blob>;
  // Kinds at or below kScalar are plain bytes: no constructor, no destructor.
  enum Kind : uint32_t { kAbsent, kScalar, kString, kTable, kItems, kScalars };

  static constexpr size_t kRawSize =
      detail::max_of({sizeof(Scalar), sizeof(std::string), sizeof(TableBox), sizeof(Items), sizeof(ScalarsBox)});
  static constexpr size_t kRawAlign =
      detail::max_of({alignof(std::string), alignof(TableBox), alignof(Items), alignof(ScalarsBox)});

  static Value from_scalar(Scalar s) {
    Value x;
    x.store_scalar(s);
    return x;
  }
  void store_scalar(Scalar s) {
    std::memcpy(raw_, &s, sizeof s);
    kind_ = kScalar;
  }
  template <typename T, typename... Args>
  void emplace(Kind kind, Args&&... args) {
    new (raw_) T(std::forward<Args>(args)...);
    kind_ = kind;
  }
  void check(Kind kind) const {
    if (kind_ != kind) std::abort();
  }
  template <typename T>
  T& as(Kind kind) {
    check(kind);
    return *std::launder(reinterpret_cast<T*>(raw_));
  }
  template <typename T>
  const T& as(Kind kind) const {
    check(kind);
    return *std::launder(reinterpret_cast<const T*>(raw_));
  }
  void copy_plain(const Value& other) {  // *this is absent or plain
    std::memcpy(raw_, other.raw_, sizeof(Scalar));
    kind_ = other.kind_;
  }
  void assign_plain(const Value& other) {
    unsigned char bytes[sizeof(Scalar)];
    std::memcpy(bytes, other.raw_, sizeof bytes);
    Kind kind = other.kind_;
    reset();
    std::memcpy(raw_, bytes, sizeof bytes);
    kind_ = kind;
  }
  void reset() noexcept {
    if (kind_ > kScalar) destroy_owned();
    kind_ = kAbsent;
  }
  template <typename F>
  static void for_owned_kind(Kind kind, F&& f);
  void destroy_owned() noexcept;
  void copy_owned(const Value& other);      // *this is absent
  void move_owned(Value& other) noexcept;   // *this is absent

  Kind kind_;
  alignas(kRawAlign) unsigned char raw_[kRawSize];
};

static_assert(sizeof(void*) != 4 || sizeof(Value) == 16, "a Value is 16 bytes in wasm32");

// A table's Values, one per schema field. Up to kInline of them live in
// the TableValue itself: most tables of a program have one to three fields
// (EValue, Int, IntList, AllocationDetails, Instruction, KernelCall), so
// each is one allocation (its box) instead of two, which was about a tenth
// of serializing a program object (making and freeing the field arrays).
// Larger tables (Tensor, ExecutionPlan) keep theirs on the heap.
class FieldSlots {
 public:
  static constexpr size_t kInline = 3;

  // Out of line (fb_value.cpp): tables are made, copied and freed in many
  // places, and these loops inlined at each would cost wasm size for no speed.
  explicit FieldSlots(size_t n);
  FieldSlots(const FieldSlots& other);
  FieldSlots(FieldSlots&& other) noexcept : data_(inline_values()), size_(0) { take(other); }
  FieldSlots& operator=(const FieldSlots& other);
  FieldSlots& operator=(FieldSlots&& other) noexcept;
  ~FieldSlots() { release(); }

  size_t size() const { return size_; }
  Value& operator[](size_t i) { return data_[i]; }
  const Value& operator[](size_t i) const { return data_[i]; }
  Value* begin() { return data_; }
  Value* end() { return data_ + size_; }
  const Value* begin() const { return data_; }
  const Value* end() const { return data_ + size_; }

 private:
  Value* inline_values() { return reinterpret_cast<Value*>(inline_); }
  bool is_inline() const { return data_ == reinterpret_cast<const Value*>(inline_); }
  void take(FieldSlots& other) noexcept;  // `other` is left empty
  void release() noexcept;

  Value* data_;
  size_t size_;
  alignas(Value) unsigned char inline_[kInline * sizeof(Value)];
};

struct TableValue {
  const TableDef* def = nullptr;
  FieldSlots fields;  // fields[id]

  explicit TableValue(const TableDef* d) : def(d), fields(d->fields.size()) {}

  // Field access by name; the name must exist in the schema (a misspelt name
  // is a programming error and returns a shared empty value on read).
  const Value& get(std::string_view name) const;
  Value& at(std::string_view name);
  bool has(std::string_view name) const { return !get(name).absent(); }

  // Scalars read as their schema default when absent.
  int64_t get_int(std::string_view name) const;
  uint64_t get_uint(std::string_view name) const;
  void set_int(std::string_view name, int64_t v) { at(name) = Value::from_int(v); }
  void set_uint(std::string_view name, uint64_t v) { at(name) = Value::from_uint(v); }

  // An enum field (schema/enums.h) against one of its members: exact for
  // whatever integer the file holds (nothing narrowed to the enum's width).
  template <typename E>
  bool is(std::string_view name, E member) const {
    return get_uint(name) == code(member);
  }
  template <typename E>
  void set(std::string_view name, E member) {
    set_uint(name, code(member));
  }
};

// Little-endian raw vector of uint64 / int32 etc. helpers for scalar vectors.
size_t scalar_vector_length(const Value& v, BaseType element);
uint64_t scalar_vector_uint(const Value& v, BaseType element, size_t index);
// Element `index` (< scalar_vector_length) as int64: sign-extended when
// `element` is a signed integer type, zero-extended when unsigned.
int64_t scalar_vector_int(const Value& v, BaseType element, size_t index);
Blob make_uint64_vector(const std::vector<uint64_t>& values);

}  // namespace etpack
