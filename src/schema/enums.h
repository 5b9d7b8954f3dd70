// The schema's enums and unions (TensorDataLocation, DataLocation,
// TensorShapeDynamism, DeviceType, KernelTypes, InstructionArguments, ...):
// generated at configure time from src/schema/*.fbs by
// cmake/schema_enums.cmake into "schema_enums.h", the same values
// scripts/gen-package.mjs gives JavaScript (npm/src/generated/schema-enums.mjs).
// Compare a field with a member, never with a bare number:
// `table.is("location", TensorDataLocation::EXTERNAL)` (model/fb_value.h) or
// `location == code(DataLocation::SEGMENT)` for a value already read.
// (tests/js/schema-enums.test.mjs refuses a bare number beside these fields.)
#pragma once

#include <cstdint>

#include "schema_enums.h"

namespace etpack {

// The integer a field of enum type `E` holds for `e` (a union's type field:
// the member's index, NONE being 0).
template <typename E>
constexpr uint64_t code(E e) {
  return static_cast<uint64_t>(e);
}

}  // namespace etpack
