#include "encode/safetensors_writer.h"

#include <unordered_set>

#include "core/checked_math.h"
#include "core/json.h"

namespace etpack {

Result<std::string> safetensors_head(const std::vector<SafetensorsEntry>& tensors,
                                     const std::vector<std::pair<std::string, std::string>>& metadata) {
  // Bytes 0..7 hold the length, filled in once the header is written.
  std::string out(8, '\0');
  out.push_back('{');
  bool first = true;
  if (!metadata.empty()) {
    out += "\"__metadata__\":{";
    for (size_t i = 0; i < metadata.size(); ++i) {
      if (i) out.push_back(',');
      write_json_string(metadata[i].first, out);
      out.push_back(':');
      write_json_string(metadata[i].second, out);
    }
    out.push_back('}');
    first = false;
  }
  std::unordered_set<std::string> names;
  uint64_t at = 0;
  for (const SafetensorsEntry& t : tensors) {
    if (t.name == "__metadata__" || !names.insert(t.name).second)
      return make_error(ErrorCode::kInvalidArgument, "safetensors: tensor name \"" + t.name + "\" cannot be written (given twice or reserved)");
    auto end = checked_add(at, t.size);
    if (!end) return make_error(ErrorCode::kInvalidArgument, "safetensors: tensor sizes add up past 2^64 bytes");
    if (!first) out.push_back(',');
    first = false;
    write_json_string(t.name, out);
    out += ":{\"dtype\":";
    write_json_string(t.dtype, out);
    out += ",\"shape\":[";
    for (size_t i = 0; i < t.shape.size(); ++i) {
      if (i) out.push_back(',');
      out += std::to_string(t.shape[i]);
    }
    out += "],\"data_offsets\":[" + std::to_string(at) + "," + std::to_string(*end) + "]}";
    at = *end;
  }
  out.push_back('}');
  out.append(padding_to(out.size() - 8, 8), ' ');
  uint64_t n = out.size() - 8;
  for (size_t i = 0; i < 8; ++i, n >>= 8) out[i] = static_cast<char>(n & 0xFF);
  return out;
}

}  // namespace etpack
