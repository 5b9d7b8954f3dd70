// Writing a BundledProgram (.bpte) byte for byte as upstream's
// devtools/bundled_program/serialize does: the Python flatbuffers Builder
// (EncodePolicy::kReferencePython: children in declaration order, fields
// equal to their default omitted, vtables shared when their field-offset
// lists match, even across table types, nothing deduplicated), identifier
// BP08, no size prefix and no extended header. The embedded program goes in
// whole as a 32-aligned [ubyte], tensor data 16-aligned (the schema's
// force_align).
#pragma once

#include <cstdint>
#include <vector>

#include "core/result.h"
#include "model/fb_value.h"

namespace etpack {

// `bundle` is a BundledProgram table of schema/bundled_program.fbs. The
// fields upstream's dataclasses require must be present (the version and
// the program, a suite's method_name and test_cases, a case's inputs and
// expected_outputs, a tensor's scalar_type, sizes, data and dim_order, an
// Int's, Bool's or Double's value; null in JSON is absent):
// kSchemaMismatch naming the path otherwise. Nothing is checked against the program (upstream's
// serializer does not either: see ops/bundled_program.h's validate).
// The program and tensor bytes are copied once, into the flatbuffer (they
// are part of it).
Result<std::vector<uint8_t>> write_bundled_program(const TableValue& bundle);

}  // namespace etpack
