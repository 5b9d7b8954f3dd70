// A schema-typed, in-memory flatbuffer object tree: the program model.
// TableValue holds one Value per schema field (indexed by field id). Byte and
// scalar vectors are Blobs of little-endian elements, so constant data read
// from a file or handed in by a caller is referenced, not copied; copying a
// tree copies metadata only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "core/blob.h"
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

class Value {
 public:
  struct Absent {};
  using Items = std::vector<Value>;  // vector of tables or strings

  Value() = default;
  static Value from_int(int64_t v) { Value x; Scalar s; s.i = v; x.v_ = s; return x; }
  static Value from_uint(uint64_t v) { Value x; Scalar s; s.u = v; x.v_ = s; return x; }
  static Value from_double(double v) { Value x; Scalar s; s.d = v; x.v_ = s; return x; }
  static Value from_string(std::string v) { Value x; x.v_ = std::move(v); return x; }
  static Value from_table(TableValue t);
  // Shares `box`'s table (copy-on-write: a later write unshares it).
  static Value from_box(TableBox box) { Value x; x.v_ = std::move(box); return x; }
  static Value from_items(Items items) { Value x; x.v_ = std::move(items); return x; }
  static Value from_scalars(Blob raw) { Value x; x.v_ = std::make_shared<const Blob>(std::move(raw)); return x; }

  // The same as `*this = from_int/from_uint/from_double(...)`, in place.
  void set_scalar(Scalar s) { v_.emplace<Scalar>(s); }

  bool absent() const { return std::holds_alternative<Absent>(v_); }
  bool is_scalar() const { return std::holds_alternative<Scalar>(v_); }
  bool is_string() const { return std::holds_alternative<std::string>(v_); }
  bool is_table() const { return std::holds_alternative<TableBox>(v_); }
  bool is_items() const { return std::holds_alternative<Items>(v_); }
  bool is_scalars() const { return std::holds_alternative<ScalarsBox>(v_); }

  Scalar scalar() const { return std::get<Scalar>(v_); }
  const std::string& str() const { return std::get<std::string>(v_); }
  const TableValue& table() const { return std::get<TableBox>(v_).get(); }
  TableValue& table() { return std::get<TableBox>(v_).get_mutable(); }  // unshares first
  const Items& items() const { return std::get<Items>(v_); }
  Items& items() { return std::get<Items>(v_); }
  const Blob& scalars() const { return *std::get<ScalarsBox>(v_); }

 private:
  // A Blob is several shared pointers wide; boxed, it no longer sets the
  // size of every Value (a program has millions, most of them scalars or
  // absent), which makes a program model about half as big. Blobs are
  // immutable, so copies share the box.
  using ScalarsBox = std::shared_ptr<const Blob>;
  std::variant<Absent, Scalar, std::string, TableBox, Items, ScalarsBox> v_;
};

struct TableValue {
  const TableDef* def = nullptr;
  std::vector<Value> fields;  // fields[id]

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
};

// Little-endian raw vector of uint64 / int32 etc. helpers for scalar vectors.
size_t scalar_vector_length(const Value& v, BaseType element);
uint64_t scalar_vector_uint(const Value& v, BaseType element, size_t index);
int64_t scalar_vector_int(const Value& v, BaseType element, size_t index);
Blob make_uint64_vector(const std::vector<uint64_t>& values);

}  // namespace etpack
