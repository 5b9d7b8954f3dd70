#include "bindings/memory_options.h"

#include <string>

namespace etpack::bindings {
namespace {

// A byte count as a JSON integer or, for a BigInt the glue cannot write as
// a JSON number, a string of decimal digits; both within uint64.
std::optional<uint64_t> byte_count(const Json& j) {
  if (j.is_number()) return j.as_uint64();
  if (!j.is_string()) return std::nullopt;
  const std::string& text = j.text();
  if (text.empty() || text.size() > 20) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - digit) / 10) return std::nullopt;
    v = v * 10 + digit;
  }
  return v;
}

}  // namespace

Status method_allocator_option_from_json(const Json* json, ValidateOptions& options) {
  if (json == nullptr || json->is_null()) return {};
  if (!json->is_object())
    return make_error(ErrorCode::kInvalidArgument, "options.methodAllocator must be an object {bytes, arch, tempAllocator}");
  ValidateOptions::MethodAllocator pool;
  const Json* bytes = json->find("bytes");
  std::optional<uint64_t> count = bytes ? byte_count(*bytes) : std::nullopt;
  if (!count)
    return make_error(ErrorCode::kInvalidArgument, "options.methodAllocator.bytes must be a non-negative integer (bytes)");
  pool.bytes = *count;
  if (const Json* arch = json->find("arch"); arch && !arch->is_null()) {
    if (arch->is_string() && arch->text() == "64-bit") {
      pool.arch = AllocatorArch::k64Bit;
    } else if (arch->is_string() && arch->text() == "arm32") {
      pool.arch = AllocatorArch::kArm32;
    } else {
      return make_error(ErrorCode::kInvalidArgument, "options.methodAllocator.arch must be \"64-bit\" or \"arm32\"");
    }
  }
  if (const Json* temp = json->find("tempAllocator"); temp && !temp->is_null()) {
    if (!temp->is_bool()) return make_error(ErrorCode::kInvalidArgument, "options.methodAllocator.tempAllocator must be a boolean");
    pool.temp_allocator = temp->bool_value();
  }
  options.method_allocator = pool;
  return {};
}

}  // namespace etpack::bindings
