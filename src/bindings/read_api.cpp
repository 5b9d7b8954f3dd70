// The embind surface of reading a file: deserializePteBinary,
// ptdDeserialize, headSize (how much of a file's start the readers need),
// inspect and validate. Kept beside api.cpp, in its own EMSCRIPTEN_BINDINGS
// block; nothing here throws (failures are Outputs with a code).
#include <emscripten/bind.h>

#include "bindings/host_call.h"
#include "bindings/marshal.h"
#include "bindings/request.h"
#include "format/file_kinds.h"
#include "ops/deserialize.h"
#include "ops/inspect.h"
#include "ops/program_reply.h"
#include "ops/validate.h"

namespace etpack::bindings {
namespace {

using emscripten::val;

Output* deserialize_pte_binary_js(std::string request_text, val host) {
  HostScope scope(host);
  return run_output([&](Output& out) -> Status {
    ETP_ASSIGN(Json request, parse_request(request_text));
    ETP_ASSIGN(FileSource source, file_source_from_json(request));
    ETP_ASSIGN(PteProgramBytes pte, deserialize_pte_file(source));
    // {"mutable_data": ..., "named_data": ..., "program": {...}, "fixups": [...]}:
    // the small parts as documents with blob markers, then the program
    // streamed straight from the flatbuffer into the same string
    // (ops/program_reply.h), then its fixups.
    const PteRestored& restored = pte.restored;
    Json mutable_data = Json::null();
    if (restored.mutable_data) {
      mutable_data = Json::array();
      for (const Blob& b : *restored.mutable_data) mutable_data.push(blob_marker(out.add_blob(b)));
    }
    std::string text = "{\"mutable_data\":" + write_json(mutable_data) + ",\"named_data\":" +
                       (restored.named_data ? write_json(store_output_to_json(*restored.named_data, out)) : std::string("null")) +
                       ",\"program\":";
    std::string fixups;
    ETP_TRY(write_program_reply(pte, [&out](const Blob& b) { return out.add_blob(b); }, text, fixups));
    text += ",\"fixups\":";
    text += fixups;
    text.push_back('}');
    out.set_json(std::move(text));
    return {};
  });
}

Output* ptd_deserialize_js(std::string request_text, val host) {
  HostScope scope(host);
  return run_output([&](Output& out) -> Status {
    ETP_ASSIGN(Json request, parse_request(request_text));
    ETP_ASSIGN(FileSource source, file_source_from_json(request));
    ETP_ASSIGN(PtdFile ptd, deserialize_ptd_file(source));
    Json result = Json::object();
    Json buffers = Json::array();
    for (const Blob& b : ptd.payload.buffers) buffers.push(blob_marker(out.add_blob(b)));
    result.set("buffers", std::move(buffers));
    result.set("named_data", entries_to_json(ptd.payload.named_data));
    out.set_json(write_json(result));
    return {};
  });
}

// The kind named by the glue ("pte", "ptd": format/file_kinds.def).
Result<FileKind> file_kind_from_name(const std::string& name) {
  std::optional<FileKind> kind = file_kind_named(name);
  if (!kind) return make_error(ErrorCode::kInvalidArgument, "unknown file kind '" + name + "'");
  return *kind;
}

Output* head_size_js(std::string kind_name, std::string request_text) {
  return run_output([&](Output& out) -> Status {
    ETP_ASSIGN(FileKind kind, file_kind_from_name(kind_name));
    ETP_ASSIGN(Json request, parse_request(request_text));
    ETP_ASSIGN(Blob probe, blob_from_json(*request.find("probe")));
    auto size = request.find("size") ? request.find("size")->as_uint64() : std::nullopt;
    if (!size) return make_error(ErrorCode::kInvalidArgument, "request needs the file size");
    // Validation and inspection read what they can of a malformed file and
    // report on it; the readers need a well-formed head.
    const bool lenient = request.find("lenient") && request.find("lenient")->is_bool() && request.find("lenient")->bool_value();
    ETP_ASSIGN(uint64_t head, head_bytes(kind, probe, *size, lenient));
    Json result = Json::object();
    result.set("head_size", Json::unsigned_integer(head));
    out.set_json(write_json(result));
    return {};
  });
}

Output* inspect_js(std::string kind_name, std::string request_text, val host) {
  HostScope scope(host);
  return run_output([&](Output& out) -> Status {
    ETP_ASSIGN(FileKind kind, file_kind_from_name(kind_name));
    ETP_ASSIGN(Json request, parse_request(request_text));
    ETP_ASSIGN(FileSource file, file_source_from_json(request));
    const Json* data_files = request.find("dataFiles");  // how many .ptd files (npm/src/ops/inspect.mjs)
    const std::optional<uint64_t> count = data_files ? data_files->as_uint64() : std::optional<uint64_t>(0);
    if (!count) return make_error(ErrorCode::kInvalidArgument, "request.dataFiles must be a count");
    ETP_ASSIGN(InspectReply reply, inspect_file(kind, file, *count > SIZE_MAX ? SIZE_MAX : static_cast<size_t>(*count)));
    out.set_json(std::move(reply.json));
    for (std::string& names : reply.names) out.add_text(std::move(names));
    return {};
  });
}

// Files arrive as {head, file}: the head in the heap, the rest referenced
// (padding past the head is peeked at through the host).
Output* validate_js(std::string request_text, val host) {
  HostScope scope(host);
  return run_output([&](Output& out) -> Status {
    ETP_ASSIGN(Json request, parse_request(request_text));
    const Json* main = request.find("pte");
    if (main == nullptr) return make_error(ErrorCode::kInvalidArgument, "request needs pte");
    ETP_ASSIGN(ValidateOptions options, validate_options_from_json(request.find("options")));
    ETP_ASSIGN(FileSource pte, file_source_from_json(*main));
    std::vector<std::pair<std::string, FileSource>> ptds;
    if (const Json* list = request.find("ptds"); list && list->is_object())
      for (const auto& [name, ref] : list->members()) {
        ETP_ASSIGN(FileSource f, file_source_from_json(ref));
        ptds.emplace_back(name, std::move(f));
      }
    // A .ptd given as the main file is validated on its own, and so is
    // every other file given with it (ops/validate.h).
    const Json* name = request.find("name");
    ETP_ASSIGN(ValidationReport report,
               validate_files(name && name->is_string() ? name->text() : "ptd", pte, ptds, options));
    out.set_json(write_json(report.to_json()));
    return {};
  });
}

}  // namespace
}  // namespace etpack::bindings

EMSCRIPTEN_BINDINGS(executorch_pack_read) {
  using namespace emscripten;
  using namespace etpack::bindings;
  function("deserializePteBinary", &deserialize_pte_binary_js, allow_raw_pointers());
  function("ptdDeserialize", &ptd_deserialize_js, allow_raw_pointers());
  function("headSize", &head_size_js, allow_raw_pointers());
  function("inspect", &inspect_js, allow_raw_pointers());
  function("validate", &validate_js, allow_raw_pointers());
}
