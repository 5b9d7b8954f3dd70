#include "validate/bundled_checks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "validate/bundled_tensor_checks.h"

namespace etpack {
namespace {

using bundled::Role;
using bundled::Where;

// Python-like spelling of a double for messages (17 significant digits
// round-trip; NaN and infinities by name). snprintf, not an ostringstream:
// the only iostream in the core pulled libc++'s streams and locales (~66 KB
// of functions before wasm-opt) into the .wasm.
std::string double_text(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", d);
  return text;
}

double double_field(const TableValue& t, const char* name) {
  const Value& v = t.get(name);
  return v.is_scalar() ? v.scalar().d : 0.0;
}

// Method::set_input's comparison of a Double input with the program's value
// (`bundled` set against `traced`): NaN equals NaN, infinities of one sign
// are equal, else |bundled - traced| <= 1e-4 + |1e-5 * traced|.
bool double_input_matches(double bundled, double traced) {
  if (std::isnan(bundled) && std::isnan(traced)) return true;
  if (!std::isfinite(bundled) && !std::isfinite(traced) && (bundled > 0) == (traced > 0)) return true;
  const double allowed = 1e-4 + std::abs(1e-5 * traced);
  const double actual = std::abs(bundled - traced);
  return std::isfinite(actual) && actual <= allowed;
}

class BundleChecker {
 public:
  BundleChecker(const TableValue* program, ValidationReport& report) : program_(program), report_(report) {
    if (program_ == nullptr) return;
    const Value& plans = program_->get("execution_plan");
    if (!plans.is_items()) return;
    for (size_t i = 0; i < plans.items().size(); ++i) {
      const Value& plan = plans.items()[i];
      if (!plan.is_table() || !plan.table().get("name").is_string()) continue;
      // First wins, as Program::load_method's lookup; names compared as C
      // strings, as get_method_test_suite's strcmp does.
      if (methods_.emplace(c_name(plan.table().get("name").str()), &plan.table()).second)
        method_order_.push_back(c_name(plan.table().get("name").str()));
    }
  }

  void suites(const TableValue& bundle) {
    const Value& suites = bundle.get("method_test_suites");
    if (!suites.is_items()) {
      // get_method_test_suite takes the list's size unchecked: a crash.
      report_.error(finding::kMissingField, "the bundle has no method_test_suites (the runtime reads them unchecked)", "method_test_suites");
      return;
    }
    std::set<std::string> seen;
    for (size_t s = 0; s < suites.items().size(); ++s) {
      const std::string path = "method_test_suites[" + std::to_string(s) + "]";
      const Value& item = suites.items()[s];
      if (!item.is_table() || !item.table().get("method_name").is_string()) {
        // The lookup compares every suite's name up to the method's, unchecked.
        report_.error(finding::kMissingField, "suite " + std::to_string(s) + " has no method_name (the runtime compares it unchecked)",
                      path + ".method_name");
        continue;
      }
      const TableValue& suite = item.table();
      const std::string name = c_name(suite.get("method_name").str());
      const std::string said = "suite '" + name + "'";
      // The lookup stops at the first suite of a name: a later one, or one
      // naming no method, is never read, so its cases are not judged.
      if (!seen.insert(name).second) {
        report_.warning(finding::kBundleSuiteDuplicate, said + " is the second suite for this method: the runtime only reads the first", path);
        continue;
      }
      const TableValue* plan = nullptr;
      if (program_ != nullptr) {
        auto it = methods_.find(name);
        if (it == methods_.end()) {
          report_.warning(finding::kBundleMethodNotFound, said + " names no method of the program: the runtime never reads it",
                          path + ".method_name");
          continue;
        }
        plan = it->second;
      }
      const Value& cases = suite.get("test_cases");
      if (!cases.is_items()) {
        report_.error(finding::kMissingField, said + " has no test_cases (the runtime reads them unchecked)", path + ".test_cases");
        continue;
      }
      // load_bundled_input checks testset_idx < test_cases()->size():
      // InvalidArgument for every index.
      if (cases.items().empty())
        report_.warning(finding::kBundleSuiteNoCases,
                        said + " has no test cases: load_bundled_input(method '" + name +
                            "', bundle, i) fails InvalidArgument for every i (testset_idx out of range)",
                        path + ".test_cases");
      for (size_t c = 0; c < cases.items().size(); ++c) {
        const Where where{path + ".test_cases[" + std::to_string(c) + "]", said + ", case " + std::to_string(c)};
        const Value& test_case = cases.items()[c];
        if (!test_case.is_table()) continue;  // the verifier refuses null offsets; nothing to say
        one_case(test_case.table(), plan, where);
      }
    }
    // get_method_test_suite finds no suite for a method none names:
    // load_bundled_input fails InvalidArgument ("No method named ...").
    for (const std::string& method : method_order_)
      if (seen.count(method) == 0)
        report_.warning(finding::kBundleMethodNoSuite,
                        "the program's method '" + method + "' has no test suite: load_bundled_input(method '" +
                            method + "', bundle, i) fails InvalidArgument for every i",
                        "method_test_suites");
  }

 private:
  void one_case(const TableValue& test_case, const TableValue* plan, const Where& where) {
    for (const Role role : {Role::kInput, Role::kExpectedOutput}) {
      const bool outputs = role == Role::kExpectedOutput;
      const char* field = outputs ? "expected_outputs" : "inputs";
      const char* noun = outputs ? "expected output" : "input";
      const Value& values = test_case.get(field);
      const std::string path = where.path + "." + field;
      const Value* method_list = plan != nullptr ? &plan->get(outputs ? "outputs" : "inputs") : nullptr;
      const size_t method_count = method_list != nullptr ? scalar_vector_length(*method_list, BaseType::kInt) : 0;
      if (!values.is_items()) {
        // load_bundled_input indexes the inputs once per method input, and
        // verify_method_outputs takes the expected outputs' size first:
        // both unchecked.
        if (!outputs && plan != nullptr && method_count == 0)
          report_.warning(finding::kMissingField, where.said + " has no inputs; the method takes none, so the runtime never reads the field", path);
        else
          report_.error(finding::kMissingField, where.said + " has no " + field + " (the runtime reads them unchecked)", path);
        continue;
      }
      const size_t count = values.items().size();
      if (outputs && count == 0) {
        // verify_method_outputs returns NotSupported: upstream's writer
        // makes such cases when no expected outputs are given.
        report_.warning(finding::kBundleNoExpectedOutputs, where.said + " has no expected outputs: the runtime cannot verify it", path);
        continue;
      }
      size_t judged = count;
      if (plan != nullptr && count < method_count) {
        // The runtime reads method_count values by index, past the list's end.
        report_.error(finding::kBundleValueCount, where.said + " has " + std::to_string(count) + " " + noun + "s; the method has " +
                                                      std::to_string(method_count) + ": the runtime reads past the end of the list", path);
      } else if (plan != nullptr && count > method_count) {
        report_.warning(finding::kBundleValuesUnused, where.said + " has " + std::to_string(count) + " " + noun + "s; the method has " +
                                                          std::to_string(method_count) + ": the runtime never reads the others", path);
        judged = method_count;
      }
      for (size_t i = 0; i < judged; ++i) {
        const Where value_where{path + "[" + std::to_string(i) + "]", where.said + ", " + noun + " " + std::to_string(i)};
        const TableValue* method_value = nullptr;
        if (plan != nullptr && i < method_count) method_value = plan_value(*plan, scalar_vector_int(*method_list, BaseType::kInt, i));
        const Value& v = values.items()[i];
        if (v.is_table()) one_value(v.table(), method_value, role, value_where);
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

  void one_value(const TableValue& value, const TableValue* method_value, Role role, const Where& where) {
    const Value& val = value.get("val");
    if (!value.is("val_type", ValueUnion::NONE) && !val.is_table()) {
      // The runtime casts the absent table and reads through it.
      report_.error(finding::kMissingField, where.said + " has a type but no value", where.path + ".val");
      return;
    }
    const std::string kind = val.is_table() ? val.table().def->name : "None";
    if (kind == "None") {
      report_.error(finding::kBundleValueType, where.said + " is None: the runtime supports only Tensor, Int, Double and Bool values",
                    where.path + ".val");
      return;
    }
    if (role == Role::kExpectedOutput && kind != "Tensor") {
      report_.error(finding::kBundleValueType, where.said + " is " + kind +
                                                   ": the runtime's verify_method_outputs compares only Tensor expected outputs (NotSupported)",
                    where.path + ".val");
      return;
    }
    const TableValue* method_val = nullptr;
    if (method_value != nullptr) {
      const Value& mv = method_value->get("val");
      const std::string method_kind = mv.is_table() ? mv.table().def->name : "Null";
      if (method_kind != kind) {
        // set_input refuses another tag; toTensor() on a method output that
        // is no tensor aborts.
        report_.error(finding::kBundleValueType, where.said + " is " + kind + "; the method's is " + method_kind, where.path + ".val");
      } else {
        method_val = &mv.table();
      }
    }
    if (kind == "Tensor") {
      bundled::check_tensor(val.table(), method_val, role, where, report_);
    } else if (method_val != nullptr) {
      scalar_input(kind, val.table(), *method_val, where);
    }
  }

  // set_input keeps an Int, Bool or Double input of the program as traced:
  // the bundled value must equal it (a Double within set_input's tolerance).
  void scalar_input(const std::string& kind, const TableValue& bundled, const TableValue& traced, const Where& where) {
    std::string have;
    std::string want;
    if (kind == "Int") {
      const int64_t b = bundled.get_int("int_val"), t = traced.get_int("int_val");
      if (b == t) return;
      have = std::to_string(b);
      want = std::to_string(t);
    } else if (kind == "Bool") {
      const bool b = bundled.get_uint("bool_val") != 0, t = traced.get_uint("bool_val") != 0;
      if (b == t) return;
      have = b ? "true" : "false";
      want = t ? "true" : "false";
    } else if (kind == "Double") {
      const double b = double_field(bundled, "double_val"), t = double_field(traced, "double_val");
      if (double_input_matches(b, t)) return;
      have = double_text(b);
      want = double_text(t);
    } else {
      return;
    }
    report_.error(finding::kBundleInputValue, where.said + " is " + have + "; the program's input holds " + want +
                                                  ": set_input refuses a value other than the one traced",
                  where.path + ".val");
  }

  const TableValue* program_;
  bundled::Reporter report_;
  std::map<std::string, const TableValue*> methods_;
  std::vector<std::string> method_order_;  // the keys of methods_, in program order

  // A name as the runtime compares it (strcmp of c_str()): up to a NUL.
  static std::string c_name(const std::string& name) { return name.substr(0, name.find('\0')); }
};

}  // namespace

void check_bundle(const TableValue& bundle, const TableValue* program, ValidationReport& report) {
  BundleChecker(program, report).suites(bundle);
}

void check_program_placement(const Blob& file, const Blob& program, ValidationReport& report) {
  if (program.empty() || program.data() < file.data()) return;
  const uint64_t offset = static_cast<uint64_t>(program.data() - file.data());
  if (offset % 16 == 0) return;
  report.errors.push_back(Finding{finding::kBundleProgramMisaligned,
                                  "the embedded program starts at byte " + std::to_string(offset) +
                                      ", not a multiple of 16: Program::load refuses program data not aligned to "
                                      "alignof(max_align_t) (upstream's writer aligns it to 32)",
                                  "bpte", offset, "program"});
}

}  // namespace etpack
