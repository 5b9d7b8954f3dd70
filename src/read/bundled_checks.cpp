#include "read/bundled_checks.h"

#include <map>
#include <set>
#include <string>

#include "core/checked_math.h"
#include "model/scalar_type.h"

namespace etpack {
namespace {

constexpr size_t kMaxRank = 16;  // the runtime's kTensorDimensionLimit / bundled kMaxDim

// Where a value is, for paths and messages.
struct Where {
  std::string path;  // method_test_suites[0].test_cases[1].inputs[0]
  std::string said;  // suite 'forward', case 1, input 0
};

class BundleChecker {
 public:
  BundleChecker(const TableValue* program, ValidationReport& report) : program_(program), report_(report) {
    if (program_ == nullptr) return;
    const Value& plans = program_->get("execution_plan");
    if (!plans.is_items()) return;
    for (size_t i = 0; i < plans.items().size(); ++i) {
      const Value& plan = plans.items()[i];
      if (!plan.is_table() || !plan.table().get("name").is_string()) continue;
      methods_.emplace(plan.table().get("name").str(), &plan.table());  // first wins, as the runtime's lookup
    }
  }

  void suites(const TableValue& bundle) {
    const Value& suites = bundle.get("method_test_suites");
    if (!suites.is_items()) {
      error(finding::kMissingField, "the bundle has no method_test_suites (the runtime reads them unchecked)", "method_test_suites");
      return;
    }
    std::set<std::string> seen;
    for (size_t s = 0; s < suites.items().size(); ++s) {
      const std::string path = "method_test_suites[" + std::to_string(s) + "]";
      const Value& item = suites.items()[s];
      if (!item.is_table() || !item.table().get("method_name").is_string()) {
        error(finding::kMissingField, "suite " + std::to_string(s) + " has no method_name (the runtime compares it unchecked)", path + ".method_name");
        continue;
      }
      const TableValue& suite = item.table();
      const std::string& name = suite.get("method_name").str();
      const std::string said = "suite '" + name + "'";
      if (!seen.insert(name).second)
        warning(finding::kBundleSuiteDuplicate, said + " is the second suite for this method: the runtime only finds the first", path);
      const TableValue* plan = nullptr;
      if (program_ != nullptr) {
        auto it = methods_.find(name);
        if (it == methods_.end()) error(finding::kBundleMethodNotFound, said + " names no method of the program", path + ".method_name");
        else plan = it->second;
      }
      const Value& cases = suite.get("test_cases");
      if (!cases.is_items()) {
        error(finding::kMissingField, said + " has no test_cases (the runtime reads them unchecked)", path + ".test_cases");
        continue;
      }
      for (size_t c = 0; c < cases.items().size(); ++c) {
        const Where where{path + ".test_cases[" + std::to_string(c) + "]", said + ", case " + std::to_string(c)};
        const Value& test_case = cases.items()[c];
        if (!test_case.is_table()) continue;  // the verifier refuses null offsets; nothing to say
        one_case(test_case.table(), plan, where);
      }
    }
  }

 private:
  void one_case(const TableValue& test_case, const TableValue* plan, const Where& where) {
    for (const bool outputs : {false, true}) {
      const char* field = outputs ? "expected_outputs" : "inputs";
      const char* noun = outputs ? "expected output" : "input";
      const Value& values = test_case.get(field);
      const std::string path = where.path + "." + field;
      if (!values.is_items()) {
        error(finding::kMissingField, where.said + " has no " + field + " (the runtime reads them unchecked)", path);
        continue;
      }
      const size_t count = values.items().size();
      const Value* method_list = plan != nullptr ? &plan->get(outputs ? "outputs" : "inputs") : nullptr;
      const size_t method_count = method_list != nullptr ? scalar_vector_length(*method_list, BaseType::kInt) : 0;
      if (outputs && count == 0) {
        warning(finding::kBundleNoExpectedOutputs, where.said + " has no expected outputs: the runtime cannot verify it", path);
      } else if (plan != nullptr && count != method_count) {
        error(finding::kBundleValueCount, where.said + " has " + std::to_string(count) + " " + noun + "s; the method has " +
                                              std::to_string(method_count), path);
      }
      for (size_t i = 0; i < count; ++i) {
        const Where value_where{path + "[" + std::to_string(i) + "]", where.said + ", " + noun + " " + std::to_string(i)};
        const TableValue* method_value = nullptr;
        if (plan != nullptr && i < method_count) method_value = plan_value(*plan, scalar_vector_int(*method_list, BaseType::kInt, i));
        const Value& v = values.items()[i];
        if (v.is_table()) one_value(v.table(), method_value, plan != nullptr && i < method_count, value_where);
      }
    }
  }

  // The method's EValue at `index`, or nullptr when there is none (validate
  // of the program reports bad indices).
  static const TableValue* plan_value(const TableValue& plan, int64_t index) {
    const Value& values = plan.get("values");
    if (index < 0 || !values.is_items() || static_cast<uint64_t>(index) >= values.items().size()) return nullptr;
    const Value& v = values.items()[static_cast<size_t>(index)];
    return v.is_table() ? &v.table() : nullptr;
  }

  void one_value(const TableValue& value, const TableValue* method_value, bool compare, const Where& where) {
    const Value& val = value.get("val");
    const uint64_t type = value.get_uint("val_type");
    if (type != 0 && !val.is_table()) {
      error(finding::kMissingField, where.said + " has a type but no value", where.path + ".val");
      return;
    }
    const std::string kind = val.is_table() ? val.table().def->name : "None";
    const TableValue* method_val = nullptr;
    std::string method_kind;
    if (method_value != nullptr) {
      const Value& mv = method_value->get("val");
      method_kind = mv.is_table() ? mv.table().def->name : "Null";
      if (mv.is_table()) method_val = &mv.table();
    }
    if (kind == "None") {
      error(finding::kBundleValueType, where.said + " is None: the runtime's load_bundled_input supports only Tensor, Int, Double and Bool",
            where.path + ".val");
      return;
    }
    if (compare && method_value != nullptr && method_kind != kind) {
      error(finding::kBundleValueType, where.said + " is " + kind + "; the method's is " + method_kind, where.path + ".val");
      method_val = nullptr;
    }
    if (kind == "Tensor") tensor(val.table(), method_kind == "Tensor" ? method_val : nullptr, where);
  }

  // Signed elements sign-extended, unsigned ones (dim_order's ubyte) not.
  static std::vector<int64_t> ints(const Value& v, BaseType element) {
    std::vector<int64_t> out;
    const size_t n = scalar_vector_length(v, element);
    out.reserve(n);
    for (size_t i = 0; i < n; ++i) out.push_back(scalar_vector_int(v, element, i));
    return out;
  }

  static std::string list(const std::vector<int64_t>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
  }

  void tensor(const TableValue& t, const TableValue* method_tensor, const Where& where) {
    for (const char* field : {"sizes", "data", "dim_order"}) {
      if (t.get(field).absent()) {
        error(finding::kMissingField, where.said + " is a tensor without " + field + " (the runtime reads it unchecked)",
              where.path + ".val." + field);
        return;
      }
    }
    const int64_t scalar_type = t.get_int("scalar_type");
    const std::vector<int64_t> sizes = ints(t.get("sizes"), BaseType::kInt);
    const std::vector<int64_t> dim_order = ints(t.get("dim_order"), BaseType::kUByte);
    const uint64_t data_size = t.get("data").scalars().size();
    const char* type_name = scalar_type_name(scalar_type);
    bool valid = true;
    if (type_name == nullptr) {
      error(finding::kBundleTensorInvalid, where.said + " has unknown scalar type " + std::to_string(scalar_type), where.path + ".val.scalar_type");
      valid = false;
    }
    if (sizes.size() > kMaxRank) {
      error(finding::kBundleTensorInvalid, where.said + " has rank " + std::to_string(sizes.size()) + " > 16", where.path + ".val.sizes");
      return;
    }
    for (int64_t s : sizes) {
      if (s < 0) {
        error(finding::kBundleTensorInvalid, where.said + " has a negative size in " + list(sizes), where.path + ".val.sizes");
        return;
      }
    }
    bool permutation = dim_order.size() == sizes.size();
    std::vector<bool> used(sizes.size(), false);
    for (int64_t d : dim_order) {
      if (!permutation || d < 0 || d >= static_cast<int64_t>(sizes.size()) || used[static_cast<size_t>(d)]) {
        permutation = false;
        break;
      }
      used[static_cast<size_t>(d)] = true;
    }
    if (!permutation)
      error(finding::kBundleTensorInvalid, where.said + " has dim_order " + list(dim_order) + ", not a permutation of its " +
                                               std::to_string(sizes.size()) + " dims", where.path + ".val.dim_order");
    if (valid) {
      const std::optional<uint64_t> need = tensor_nbytes(scalar_type, sizes);
      if (!need) {
        error(finding::kBundleTensorInvalid, where.said + " has sizes " + list(sizes) + " whose byte size overflows", where.path + ".val.sizes");
      } else if (data_size < *need) {
        error(finding::kBundleTensorDataShort, where.said + " holds " + std::to_string(data_size) + " data bytes; " + type_name +
                                                   " " + list(sizes) + " needs " + std::to_string(*need), where.path + ".val.data");
      } else if (data_size > *need) {
        warning(finding::kBundleTensorDataLong, where.said + " holds " + std::to_string(data_size) + " data bytes; " + type_name +
                                                    " " + list(sizes) + " needs only " + std::to_string(*need), where.path + ".val.data");
      }
    }
    if (method_tensor == nullptr) return;
    const int64_t method_type = method_tensor->get_int("scalar_type");
    if (method_type != scalar_type) {
      const char* method_name = scalar_type_name(method_type);
      error(finding::kBundleTensorDtype, where.said + " is " + (type_name ? type_name : std::to_string(scalar_type)) +
                                             "; the method's tensor is " + (method_name ? method_name : std::to_string(method_type)),
            where.path + ".val.scalar_type");
    }
    const std::vector<int64_t> method_sizes = ints(method_tensor->get("sizes"), BaseType::kInt);
    const std::vector<int64_t> method_dim_order = ints(method_tensor->get("dim_order"), BaseType::kUByte);
    // STATIC: the sizes must match; DYNAMIC_BOUND: each at most the
    // planned one; DYNAMIC_UNBOUND: any (the program's validate says the
    // runtime does not support it).
    const int64_t dynamism = method_tensor->get_int("shape_dynamism");
    bool fits = method_sizes.size() == sizes.size();
    for (size_t i = 0; fits && i < sizes.size(); ++i)
      fits = dynamism == 0 ? sizes[i] == method_sizes[i] : dynamism == 1 ? sizes[i] <= method_sizes[i] : true;
    if (!fits) {
      error(finding::kBundleTensorShape, where.said + " has sizes " + list(sizes) + "; the method's tensor " + list(method_sizes) +
                                             (dynamism == 1 ? " (an upper bound)" : ""), where.path + ".val.sizes");
    } else if (permutation && !method_dim_order.empty() && method_dim_order != dim_order) {
      error(finding::kBundleTensorShape, where.said + " has dim_order " + list(dim_order) + "; the method's tensor " +
                                             list(method_dim_order), where.path + ".val.dim_order");
    }
  }

  void error(const char* code, std::string message, std::string path) {
    report_.errors.push_back(Finding{code, std::move(message), "bpte", std::nullopt, std::move(path)});
  }
  void warning(const char* code, std::string message, std::string path) {
    report_.warnings.push_back(Finding{code, std::move(message), "bpte", std::nullopt, std::move(path)});
  }

  const TableValue* program_;
  ValidationReport& report_;
  std::map<std::string, const TableValue*> methods_;
};

}  // namespace

void check_bundle(const TableValue& bundle, const TableValue* program, ValidationReport& report) {
  BundleChecker(program, report).suites(bundle);
}

}  // namespace etpack
