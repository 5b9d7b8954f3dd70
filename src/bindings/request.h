// The one request parser of the bindings: every embind function takes its
// request as JSON text from the JS glue (npm/src/marshal/ builds it) and
// parses it here, into the types of the op it calls. A request that does not
// parse, or lacks a field, is a caller mistake: kInvalidArgument naming the
// field.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bindings/host_call.h"
#include "core/json.h"
#include "format/file_source.h"
#include "ops/bundled_program.h"
#include "ops/etdump.h"
#include "ops/validate.h"
#include "ops/weights_ops.h"

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

// Fields every request may hold: request[key] as a string, an unsigned
// integer, or heap bytes {ptr, len} (a view, alive for the call).
Result<std::string> text_field(const Json& request, const char* key);
Result<uint64_t> uint_field(const Json& request, const char* key);
Result<std::string_view> bytes_field(const Json& request, const char* key);

// The weights requests (ops/weights_ops.h; their JSON is documented there
// and in npm/src/weights.mjs, safetensors.mjs and diff.mjs, which build them).
// A file given as request[key] = {head, file} (`op` names the operation in
// the message when either is missing).
Result<FileSource> weights_file(const Json& request, const char* key, const char* op);
// {file, size, header}: a safetensors header's bytes.
Result<SafetensorsHeaderBytes> safetensors_header_bytes(const Json& request);
// A tensor {name?, path?, scalar_type, sizes?, dim_order?, external?, buffer?}.
Result<NamedTensor> named_tensor_from_json(const Json& tensor);
// {target, rename: [[from, to]], files: [{file, size, header, expect?, index?}],
// pte: {head, file} | program: [tensor, ...]}.
Result<WeightsMatchRequest> weights_match_request(const Json& request);
// {include: [glob], metadata: [[k, v]], tensors: [{...tensor, available, source}]}.
Result<WeightsExportRequest> weights_export_request(const Json& request);
// {size, ranges: [[offset, length], ...]}: the ranges.
Result<std::vector<ByteRange>> byte_ranges_request(const Json& request);

}  // namespace etpack::bindings
