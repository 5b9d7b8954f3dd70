// The checks validate makes of a BundledProgram's test cases (.bpte)
// against its embedded program, judged by what upstream's runtime
// (devtools/bundled_program/bundled_program.cpp, with Method::set_input and
// TensorImpl under it) does with the same bytes. Its path: get_program_data
// checks only the identifier and hands the program to Program::load;
// load_bundled_input finds the first suite whose method_name equals the
// method's name, then reads exactly as many values as the method has inputs
// (by index, no bounds check) and sets each with set_input; after execution
// verify_method_outputs reads as many expected outputs as the method has
// outputs and compares each with the method's. ET_CHECK failures there
// abort the process. A finding is an error where the runtime refuses,
// aborts, reads out of bounds or loads the values wrongly; a warning where
// it reads past something odd; nothing where it is fine.
#pragma once

#include <vector>

#include "core/blob.h"
#include "model/fb_value.h"
#include "validate/validate.h"

namespace etpack {

// Finding codes of a bundle (stable strings, part of the API like those of
// validate/validate.h). E: the runtime would refuse, crash, read out of bounds or
// load wrong values; W: it reads past the oddity.
namespace finding {
constexpr const char* kBundleMethodNotFound = "BUNDLE_METHOD_NOT_FOUND";      // W a suite names no method of the program (never read)
constexpr const char* kBundleSuiteDuplicate = "BUNDLE_SUITE_DUPLICATE";      // W two suites for one method (the runtime uses the first)
constexpr const char* kBundleValueCount = "BUNDLE_VALUE_COUNT_MISMATCH";     // E fewer inputs/expected outputs than the method has
constexpr const char* kBundleValuesUnused = "BUNDLE_VALUES_UNUSED";          // W more inputs/expected outputs than the method has (never read)
constexpr const char* kBundleNoExpectedOutputs = "BUNDLE_NO_EXPECTED_OUTPUTS";  // W a case without expected outputs (verification refused)
constexpr const char* kBundleValueType = "BUNDLE_VALUE_TYPE_MISMATCH";       // E a value's type differs from the method's, is None, or an expected output is no Tensor
constexpr const char* kBundleInputValue = "BUNDLE_INPUT_VALUE_MISMATCH";     // E an Int/Bool/Double input differs from the value the program holds
constexpr const char* kBundleTensorDtype = "BUNDLE_TENSOR_DTYPE_MISMATCH";   // E a tensor's scalar type differs from the method's
constexpr const char* kBundleTensorShape = "BUNDLE_TENSOR_SHAPE_MISMATCH";   // E rank, sizes (past a dynamic tensor's capacity) or memory layout differ
constexpr const char* kBundleTensorInvalid = "BUNDLE_TENSOR_INVALID";        // E unknown scalar type, negative size, rank > 16, an expected output's dim order no permutation
constexpr const char* kBundleDimOrderIgnored = "BUNDLE_DIM_ORDER_IGNORED";   // W a dim order the runtime never reads (an input's, or entries past an output's rank)
constexpr const char* kBundleTensorDataShort = "BUNDLE_TENSOR_DATA_SHORT";   // E fewer data bytes than sizes * element size
constexpr const char* kBundleTensorDataLong = "BUNDLE_TENSOR_DATA_LONG";     // W more data bytes than the tensor needs
constexpr const char* kBundleProgramMisaligned = "BUNDLE_PROGRAM_MISALIGNED";  // E the embedded program does not start at a multiple of 16
}  // namespace finding

// Appends to `report` every problem of `bundle`'s suites (file "bpte",
// paths like "method_test_suites[0].test_cases[1].inputs[0]"), checked
// against `program` (a Program table) when it is given, else on their own
// (every suite, case and value judged as if the runtime read it). Work is
// linear in the bundle's and the program's sizes.
void check_bundle(const TableValue& bundle, const TableValue* program, ValidationReport& report);

// Where the embedded program lies in the file: Program::load refuses
// program data not aligned to alignof(std::max_align_t) (16 on 64-bit
// hosts), and a runner reads the .bpte into an aligned buffer, so the
// program's offset must be a multiple of 16 (upstream's writer aligns it
// to 32). `program` is a slice of `file`.
void check_program_placement(const Blob& file, const Blob& program, ValidationReport& report);

}  // namespace etpack
