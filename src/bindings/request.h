// What the binding files share about a request: its JSON text parsed (a
// caller mistake when it does not parse) and a file given as {head, file}
// (the head in the heap, the rest referenced through the host).
#pragma once

#include <string>

#include "bindings/host_call.h"
#include "core/json.h"
#include "format/file_source.h"

namespace etpack::bindings {

inline Result<Json> parse_request(const std::string& text) {
  auto j = parse_json(text);
  if (!j.ok()) return make_error(ErrorCode::kInvalidArgument, "bad request: " + j.error().message);
  return j;
}

inline Result<FileSource> file_source_from_json(const Json& request) {
  const Json* head = request.find("head");
  const Json* file = request.find("file");
  if (head == nullptr || file == nullptr) return make_error(ErrorCode::kInvalidArgument, "request needs head and file");
  FileSource source;
  ETP_ASSIGN(source.head, blob_from_json(*head));
  ETP_ASSIGN(source.file, blob_from_json(*file));
  return source;
}

}  // namespace etpack::bindings
