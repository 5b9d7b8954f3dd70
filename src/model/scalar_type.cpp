#include "model/scalar_type.h"

#include "core/checked_math.h"

namespace etpack {
namespace {

struct Info {
  const char* name;
  uint8_t size;
};

// Indexed by ScalarType value.
constexpr Info kTypes[] = {
    {"Byte", 1},          {"Char", 1},          {"Short", 2},           {"Int", 4},
    {"Long", 8},          {"Half", 2},          {"Float", 4},           {"Double", 8},
    {"ComplexHalf", 4},   {"ComplexFloat", 8},  {"ComplexDouble", 16},  {"Bool", 1},
    {"QInt8", 1},         {"QUInt8", 1},        {"QInt32", 4},          {"BFloat16", 2},
    {"QUInt4x2", 1},      {"QUInt2x4", 1},      {"Bits1x8", 1},         {"Bits2x4", 1},
    {"Bits4x2", 1},       {"Bits8", 1},         {"Bits16", 2},          {"Float8_e5m2", 1},
    {"Float8_e4m3fn", 1}, {"Float8_e5m2fnuz", 1}, {"Float8_e4m3fnuz", 1}, {"UInt16", 2},
    {"UInt32", 4},        {"UInt64", 8},
};
constexpr int64_t kCount = static_cast<int64_t>(sizeof(kTypes) / sizeof(kTypes[0]));

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
