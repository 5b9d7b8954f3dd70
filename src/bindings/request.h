// The one request parser of the bindings: every embind function takes its
// request as JSON text from the JS glue (npm/src/marshal/ builds it) and
// parses it here, into the types of the op it calls. A request that does not
// parse, or lacks a field, is a caller mistake: kInvalidArgument naming the
// field.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings/host_call.h"
#include "core/json.h"
#include "format/file_source.h"
#include "ops/bundled_program.h"
#include "ops/etdump.h"
#include "ops/validate.h"

namespace etpack::bindings {

// The request's JSON text, parsed.
Result<Json> parse_request(const std::string& text);

// A file given as {head, file}: the head in the heap, the rest referenced
// through the host.
Result<FileSource> file_source_from_json(const Json& request);
// The file given as request[key] = {head, file}, its head required to be
// heap bytes (an .etdp or .pte read in place). Errors name `key`.
Result<FileSource> file_source_member(const Json& request, const char* key);

// validate's options: {"deprecatedConstantBuffer": bool, "runtime": "X.Y",
// "backends": [id, ...], "methodAllocator": {"bytes": n | "digits", "arch":
// "64-bit" | "arm32", "tempAllocator": bool}} (each optional; null or absent
// leaves the default).
Result<ValidateOptions> validate_options_from_json(const Json* json);

// profile's options: {"methods": [name | null, ...], "method": name}.
Result<ProfileOptions> profile_options_from_json(const Json& request);

// bundledSafetensorsHead's request: {tensors: [{name, dtype, shape, size}],
// metadata: [[key, value]]} (pairs that are not two strings are skipped).
struct SafetensorsHeadRequest {
  std::vector<SafetensorsEntry> tensors;
  std::vector<std::pair<std::string, std::string>> metadata;
};
Result<SafetensorsHeadRequest> safetensors_head_request(const Json& request);

}  // namespace etpack::bindings
