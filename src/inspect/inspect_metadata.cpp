#include "inspect/inspect_metadata.h"

#include <cstring>
#include <optional>
#include <string>
#include <unordered_set>

#include "core/le_bytes.h"
#include "core/nan_bits.h"

namespace etpack {
namespace {

double as_double(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

// A double of the card: a NaN other than the canonical one keeps its bits
// as { "nanBits": "<16 hex digits>" } (core/nan_bits.h), the form JS shows
// on every other path (inspect's reply is plain JSON: no marker needed).
Json card_double(double d) {
  if (auto hex = noncanonical_nan_hex(d)) {
    Json out = Json::object();
    out.set("nanBits", Json::string(*hex));
    return out;
  }
  return Json::real(d);
}

double double_field(const TableValue& t, std::string_view name) {
  const Value& v = t.get(name);
  return v.is_scalar() ? v.scalar().d : 0.0;
}

// Counts of a plan's instructions over all its chains.
bool runs_no_instruction(const TableValue& plan) {
  const Value& chains = plan.get("chains");
  for (size_t c = 0; chains.is_items() && c < chains.items().size(); ++c) {
    const Value& list = chains.items()[c].table().get("instructions");
    if (list.is_items() && !list.items().empty()) return false;
  }
  return true;
}

class ConstantReader {
 public:
  ConstantReader(const Value& values, WorkBudget& budget) : values_(values), budget_(budget) {}

  // The value at `index` as JSON, or nullopt when it is not a non-tensor
  // constant (or the budget ran out: out_of_budget() says which).
  std::optional<Json> read(int64_t index) {
    const TableValue* val = val_at(index);
    if (val == nullptr) return std::nullopt;
    const std::string& type = val->def->name;
    if (type == "Null") return Json::null();
    if (type == "Int") return Json::integer(val->get_int("int_val"));
    if (type == "Bool") return Json::boolean(val->get_uint("bool_val") != 0);
    if (type == "Double") return card_double(double_field(*val, "double_val"));
    if (type == "String") {
      const Value& s = val->get("string_val");
      return Json::string(s.is_string() ? s.str() : std::string());
    }
    const Value& items = val->get("items");
    if (type == "DoubleList") return list(items, BaseType::kDouble, [](const Value& v, size_t i) {
      return card_double(as_double(scalar_vector_uint(v, BaseType::kDouble, i)));
    });
    if (type == "BoolList") return list(items, BaseType::kBool, [](const Value& v, size_t i) {
      return Json::boolean(scalar_vector_uint(v, BaseType::kBool, i) != 0);
    });
    if (type == "IntList") {
      // Items are indices of Int values (the runtime's boxed list).
      const size_t n = scalar_vector_length(items, BaseType::kLong);
      if (!budget_.spend(n)) return std::nullopt;
      Json out = Json::array();
      for (size_t i = 0; i < n; ++i) {
        const TableValue* item = val_at(scalar_vector_int(items, BaseType::kLong, i));
        if (item == nullptr || item->def->name != "Int") return std::nullopt;
        out.push(Json::integer(item->get_int("int_val")));
      }
      return out;
    }
    return std::nullopt;  // Tensor, TensorList, OptionalTensorList
  }

 private:
  const TableValue* val_at(int64_t index) const {
    if (!values_.is_items() || index < 0 || static_cast<uint64_t>(index) >= values_.items().size()) return nullptr;
    const Value& val = values_.items()[static_cast<size_t>(index)].table().get("val");
    return val.is_table() ? &val.table() : nullptr;
  }

  template <typename Element>
  std::optional<Json> list(const Value& items, BaseType type, Element element) {
    const size_t n = scalar_vector_length(items, type);
    if (!budget_.spend(n)) return std::nullopt;
    Json out = Json::array();
    for (size_t i = 0; i < n; ++i) out.push(element(items, i));
    return out;
  }

  const Value& values_;
  WorkBudget& budget_;
};

}  // namespace

std::optional<Json> constant_methods_json(const TableValue& program, WorkBudget& budget) {
  Json out = Json::object();
  std::unordered_set<std::string> names;
  const Value& plans = program.get("execution_plan");
  for (size_t p = 0; plans.is_items() && p < plans.items().size(); ++p) {
    const TableValue& plan = plans.items()[p].table();
    const Value& name = plan.get("name");
    if (!name.is_string() || !runs_no_instruction(plan)) continue;
    const Value& outputs = plan.get("outputs");
    const Value& inputs = plan.get("inputs");
    const size_t n = scalar_vector_length(outputs, BaseType::kInt);
    const size_t in = scalar_vector_length(inputs, BaseType::kInt);
    if (n == 0 || !budget.spend(uint64_t{n} + in)) {
      if (budget.exhausted()) return std::nullopt;
      continue;
    }
    std::unordered_set<int64_t> input_set;
    for (size_t i = 0; i < in; ++i) input_set.insert(scalar_vector_int(inputs, BaseType::kInt, i));
    ConstantReader reader(plan.get("values"), budget);
    Json values = Json::array();
    bool constant = true;
    for (size_t i = 0; i < n && constant; ++i) {
      const int64_t index = scalar_vector_int(outputs, BaseType::kInt, i);
      std::optional<Json> v = input_set.count(index) ? std::nullopt : reader.read(index);
      if (budget.exhausted()) return std::nullopt;
      if (!v) constant = false;
      else values.push(std::move(*v));
    }
    if (!constant || !names.insert(name.str()).second) continue;
    out.set(name.str(), n == 1 ? std::move(values.items()[0]) : std::move(values));
  }
  return out;
}

}  // namespace etpack
