// Facts about executorch_flatbuffer.ScalarType values: names and element
// sizes. Keep in sync with upstream runtime/core/portable_type/scalar_type.h
// (and schema/scalar_type.fbs).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/result.h"

namespace etpack {

// "Float", "Long", ... or nullptr for an unknown value.
const char* scalar_type_name(int64_t scalar_type);
// Bytes per element, or nullopt for an unknown value.
std::optional<uint64_t> scalar_type_size(int64_t scalar_type);

// Bytes a dense tensor of this type and shape occupies; nullopt for an
// unknown type, a negative size or 64-bit overflow.
std::optional<uint64_t> tensor_nbytes(int64_t scalar_type, const std::vector<int64_t>& sizes);

}  // namespace etpack
