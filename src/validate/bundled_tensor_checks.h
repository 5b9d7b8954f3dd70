// Internal to read/bundled_checks.cpp: one bundled tensor judged as the
// runtime uses it (see validate/bundled_checks.h for the codes and the path).
#pragma once

#include <string>
#include <utility>

#include "model/fb_value.h"
#include "validate/validate.h"

namespace etpack {
namespace bundled {

// An input goes through load_bundled_input and Method::set_input; an
// expected output through verify_method_outputs' comparison.
enum class Role { kInput, kExpectedOutput };

// Where a value is, for paths and messages.
struct Where {
  std::string path;  // method_test_suites[0].test_cases[1].inputs[0]
  std::string said;  // suite 'forward', case 1, input 0
};

// Findings of file "bpte", by path.
class Reporter {
 public:
  explicit Reporter(ValidationReport& report) : report_(report) {}
  void error(const char* code, std::string message, std::string path) {
    report_.errors.push_back(Finding{code, std::move(message), "bpte", std::nullopt, std::move(path)});
  }
  void warning(const char* code, std::string message, std::string path) {
    report_.warnings.push_back(Finding{code, std::move(message), "bpte", std::nullopt, std::move(path)});
  }

 private:
  ValidationReport& report_;
};

// `tensor` is a bundled Tensor table; `method_tensor` the method's Tensor
// at the same place (nullptr: judged on its own).
void check_tensor(const TableValue& tensor, const TableValue* method_tensor, Role role, const Where& where, Reporter& report);

}  // namespace bundled
}  // namespace etpack
