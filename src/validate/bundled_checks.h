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
#define FINDING(id, code) constexpr const char* id = code;
#include "validate/bundled_findings.def"
#undef FINDING
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
