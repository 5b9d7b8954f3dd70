// Internal to verify.cpp: the FlatTensor and BundledProgram verifiers, in
// their own file so that the wasm build compiles them -Oz (cmake/wasm.cmake;
// issue 42): P1 metadata verifies only Programs, which stay -O3.
#pragma once

#include <cstddef>
#include <cstdint>

#include "schema/verify.h"

namespace etpack {

// flatbuffer_verifies for kFlatTensor and kBundledProgram (false for any
// other root).
bool data_file_verifies(VerifiedRoot root, const uint8_t* data, size_t size, VerifyLimits limits);

}  // namespace etpack
