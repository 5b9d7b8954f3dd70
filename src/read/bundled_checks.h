// The checks validate makes of a BundledProgram's test cases (.bpte)
// against its embedded program, as upstream's runtime
// (devtools/bundled_program/bundled_program.cpp) uses them: a suite is
// found by its method's name; load_bundled_input reads one value per method
// input (it never checks the count, so a short list reads past its end) and
// refuses a value that is no Tensor, Int, Double or Bool; a tensor's rank,
// sizes, dim order and data are used as they stand (the data must hold
// numel * element size bytes); verify_method_outputs compares each expected
// output with the method's, which needs the same dtype, sizes and strides.
#pragma once

#include <vector>

#include "model/fb_value.h"
#include "read/validate.h"

namespace etpack {

// Finding codes of a bundle (stable strings, part of the API like those of
// read/validate.h). E: the runtime would refuse, crash or compare wrongly.
namespace finding {
constexpr const char* kBundleMethodNotFound = "BUNDLE_METHOD_NOT_FOUND";      // E a suite names no method of the program
constexpr const char* kBundleSuiteDuplicate = "BUNDLE_SUITE_DUPLICATE";      // W two suites for one method (the runtime uses the first)
constexpr const char* kBundleValueCount = "BUNDLE_VALUE_COUNT_MISMATCH";     // E a case's inputs/outputs count differs from the method's
constexpr const char* kBundleNoExpectedOutputs = "BUNDLE_NO_EXPECTED_OUTPUTS";  // W a case without expected outputs (the runtime cannot verify it)
constexpr const char* kBundleValueType = "BUNDLE_VALUE_TYPE_MISMATCH";       // E a value's type differs from the method's (or is None)
constexpr const char* kBundleTensorDtype = "BUNDLE_TENSOR_DTYPE_MISMATCH";   // E a tensor's scalar type differs from the method's
constexpr const char* kBundleTensorShape = "BUNDLE_TENSOR_SHAPE_MISMATCH";   // E rank, sizes (past a dynamic bound) or dim order differ
constexpr const char* kBundleTensorInvalid = "BUNDLE_TENSOR_INVALID";        // E unknown scalar type, negative size, rank > 16, dim order no permutation
constexpr const char* kBundleTensorDataShort = "BUNDLE_TENSOR_DATA_SHORT";   // E fewer data bytes than sizes * element size
constexpr const char* kBundleTensorDataLong = "BUNDLE_TENSOR_DATA_LONG";     // W more data bytes than the tensor needs
}  // namespace finding

// Appends to `report` every problem of `bundle`'s suites (file "bpte",
// paths like "method_test_suites[0].test_cases[1].inputs[0]"), checked
// against `program` (a Program table) when it is given, else on their own.
// Work is linear in the bundle's and the program's sizes.
void check_bundle(const TableValue& bundle, const TableValue* program, ValidationReport& report);

}  // namespace etpack
