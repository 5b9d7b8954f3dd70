#include "model/scalar_type.h"

#include "core/checked_math.h"
#include "scalar_type_generated.h"

namespace etpack {
namespace {

struct Info {
  int64_t code;
  const char* name;
  uint8_t size;
};

// Indexed by ScalarType value (the rows are in code order: checked below).
constexpr Info kTypes[] = {
#define SCALAR_TYPE(schema_name, code, name, size) {code, name, size},
#include "model/scalar_types.def"
#undef SCALAR_TYPE
};
constexpr int64_t kCount = static_cast<int64_t>(sizeof(kTypes) / sizeof(kTypes[0]));

constexpr bool rows_in_code_order() {
  for (int64_t i = 0; i < kCount; ++i)
    if (kTypes[i].code != i) return false;
  return true;
}
static_assert(rows_in_code_order(), "model/scalar_types.def rows must be in code order, without gaps");
// Each row's code is the schema's (flatc's enum from scalar_type.fbs).
#define SCALAR_TYPE(schema_name, code, name, size)                           \
  static_assert(executorch_flatbuffer::ScalarType_##schema_name == (code), \
                "model/scalar_types.def: " #schema_name " differs from scalar_type.fbs");
#include "model/scalar_types.def"
#undef SCALAR_TYPE
static_assert(executorch_flatbuffer::ScalarType_MAX + 1 == kCount, "model/scalar_types.def has a row per ScalarType");

}  // namespace

const char* scalar_type_name(int64_t t) { return t >= 0 && t < kCount ? kTypes[t].name : nullptr; }

std::optional<uint64_t> scalar_type_size(int64_t t) {
  if (t < 0 || t >= kCount) return std::nullopt;
  return kTypes[t].size;
}

std::optional<uint64_t> tensor_nbytes(int64_t scalar_type, const std::vector<int64_t>& sizes) {
  auto element = scalar_type_size(scalar_type);
  if (!element) return std::nullopt;
  std::optional<uint64_t> total = *element;
  for (int64_t s : sizes) {
    if (s < 0) return std::nullopt;
    total = checked_mul(*total, static_cast<uint64_t>(s));
    if (!total) return std::nullopt;
  }
  return total;
}

}  // namespace etpack
