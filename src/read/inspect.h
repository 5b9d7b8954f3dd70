// inspect: a summary of a .pte (or .ptd) for people and tools: header
// fields, methods (inputs/outputs with dtype and shape, operators with
// counts, instruction count, delegates), constants, mutable data, named
// data, a segment map covering every byte of the file exactly once, and bytes
// by category. Input is untrusted (same rules as validate).
#pragma once

#include "core/blob.h"
#include "core/json.h"
#include "core/result.h"

namespace etpack {

// Errors: kMalformedFile / kUnsupportedVersion when the file cannot be read
// at all (use validate for a full list of problems).
Result<Json> inspect_pte(const Blob& pte);
Result<Json> inspect_ptd(const Blob& ptd);

}  // namespace etpack
