// The BundledProgram (.bpte) vectors of ../shared/conformance-bpte (see its
// README): each case.json is written as our JSON shape (the one
// serializeBundledProgram takes, byte fields as {"file": name} references),
// serialized and compared with out.bpte byte for byte; out.bpte (and the
// sample's other two files) read back and compared with case.json value by
// value; expect_error cases must be refused with a coded error.
#pragma once

#include <string>

#include "conformance/conformance_runner.h"
#include "core/json.h"

namespace etpack::conformance {

// A case.json of that folder (it has "method_test_suites").
CaseResult run_bundled_case(CaseResult r, const Json& c, const std::string& dir);

}  // namespace etpack::conformance
