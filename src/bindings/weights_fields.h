// The weights binding's request fields and reply names (weights_api.cpp):
// kept apart so that file stays within the size limit.
#pragma once

#include <string>
#include <string_view>

#include "bindings/host_call.h"
#include "core/json.h"
#include "core/result.h"
#include "read/safetensors_reader.h"

namespace etpack::bindings {

// A name for a JSON reply: as write_json_string, but a lone surrogate's
// bytes become \udxxx, so JSON.parse gives back the JS string the name
// came from (never U+FFFD). Names here are valid UTF-8 otherwise.
inline void write_name(std::string_view s, std::string& out) {
  const std::string quoted = escaped_name(s);
  // escaped_name's only non-JSON escape is \xNN for a stray byte: as \u00NN.
  for (size_t i = 0; i < quoted.size(); ++i) {
    if (quoted[i] == '\\' && i + 1 < quoted.size()) {
      if (quoted[i + 1] == 'x') {
        out += "\\u00";
        ++i;
        continue;
      }
      out.push_back(quoted[i]);
      out.push_back(quoted[++i]);
      continue;
    }
    out.push_back(quoted[i]);
  }
}

inline Result<std::string> text_field(const Json& j, const char* key) {
  const Json* v = j.find(key);
  if (!v || !v->is_string()) return make_error(ErrorCode::kInvalidArgument, std::string("request lacks string ") + key);
  return v->text();
}
inline Result<uint64_t> uint_field(const Json& j, const char* key) {
  const Json* v = j.find(key);
  auto n = v ? v->as_uint64() : std::nullopt;
  if (!n) return make_error(ErrorCode::kInvalidArgument, std::string("request lacks integer ") + key);
  return *n;
}
inline Result<std::string_view> bytes_field(const Json& j, const char* key) {
  const Json* v = j.find(key);
  if (!v) return make_error(ErrorCode::kInvalidArgument, std::string("request lacks bytes ") + key);
  ETP_ASSIGN(Blob b, blob_from_json(*v));
  if (b.is_external()) return make_error(ErrorCode::kInvalidArgument, std::string(key) + " must be heap bytes");
  return std::string_view(reinterpret_cast<const char*>(b.data()), static_cast<size_t>(b.size()));
}

}  // namespace etpack::bindings
