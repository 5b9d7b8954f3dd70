// validate's methodAllocator option, read from the request JSON of the JS
// glue (npm/src/ops/validate.mjs): kept apart from api.cpp, which calls it.
#pragma once

#include "core/json.h"
#include "core/result.h"
#include "validate/validate.h"

namespace etpack::bindings {

// {"bytes": n | "digits", "arch": "64-bit" | "arm32", "tempAllocator": bool}
// (arch and tempAllocator optional: 64-bit, true) into
// options.method_allocator; null or absent leaves it unset.
// kInvalidArgument names the field at fault.
Status method_allocator_option_from_json(const Json* json, ValidateOptions& options);

}  // namespace etpack::bindings
