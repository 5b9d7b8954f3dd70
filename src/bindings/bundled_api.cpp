// The embind surface of BundledProgram (.bpte, issue 27), beside api.cpp in
// its own EMSCRIPTEN_BINDINGS block. inspect and validate of a .bpte go
// through api.cpp's inspect/validate (ops/inspect.cpp and ops/validate.cpp
// dispatch on the file kind); here are the two calls of its own:
// - bundledSerialize(textPtr, textLen, host): the bundle as JSON text (the
//   glue's programPieces: byte fields as references) -> one cord, the file.
// - bundledDeserialize(request, host): {head, file} as the other readers
//   take them -> the bundle as JSON with BigInt markers, byte vectors
//   (program, tensor data) as returned blobs: slices of the input.
// - bundledSafetensorsHead(request): {tensors: [{name, dtype, shape, size}],
//   metadata: [[key, value]]} -> one cord, a safetensors file's head
//   (safetensors_head, through ops/bundled_program.h); the CLI's unbundle
//   appends the bytes.
#include <emscripten/bind.h>

#include "bindings/host_call.h"
#include "bindings/marshal.h"
#include "bindings/request.h"
#include "ops/bundled_program.h"

namespace etpack::bindings {
namespace {

using emscripten::val;

Output* bundled_serialize_js(double text_ptr, double text_len, val host) {
  // The text the glue put into the heap; it stays valid for the call.
  const std::string_view text(reinterpret_cast<const char*>(static_cast<uintptr_t>(text_ptr)), static_cast<size_t>(text_len));
  HostScope scope(host);
  return run_output([&](Output& out) -> Status {
    ETP_ASSIGN(std::vector<uint8_t> bytes,
               serialize_bundled_program(text, [](const Json& reference) { return blob_from_json(reference); }));
    Cord cord;
    cord.append(Blob::own(std::move(bytes)));
    out.add_cord(std::move(cord));
    out.set_json("{}");
    return {};
  });
}

Output* bundled_deserialize_js(std::string request_text, val host) {
  HostScope scope(host);
  return run_output([&](Output& out) -> Status {
    ETP_ASSIGN(Json request, parse_request(request_text));
    ETP_ASSIGN(FileSource source, file_source_from_json(request));
    ETP_ASSIGN(BundledFile bundled, deserialize_bundled_program(source));
    ToJsonOptions options;
    options.js_bigint_markers = true;
    // Byte vectors go back by reference: the glue copies each one out of
    // the heap (or views the caller's own bytes) once.
    // (dim_order, also [ubyte], stays a list of integers, as in programs.)
    options.byte_vector = [&out](const FieldDef& field, const Blob& bytes) -> std::optional<Json> {
      if (field.name == "dim_order") return std::nullopt;
      return blob_marker(out.add_blob(bytes));
    };
    out.set_json(write_json(table_to_json(bundled.bundle, options)));
    return {};
  });
}

Output* bundled_safetensors_head_js(std::string request_text) {
  return run_output([&](Output& out) -> Status {
    ETP_ASSIGN(Json request, parse_request(request_text));
    ETP_ASSIGN(SafetensorsHeadRequest head_request, safetensors_head_request(request));
    ETP_ASSIGN(std::string head, safetensors_head(head_request.tensors, head_request.metadata));
    Cord cord;
    cord.append(Blob::own(std::vector<uint8_t>(head.begin(), head.end())));
    out.add_cord(std::move(cord));
    out.set_json("{}");
    return {};
  });
}

}  // namespace
}  // namespace etpack::bindings

EMSCRIPTEN_BINDINGS(executorch_pack_bundled) {
  using namespace emscripten;
  using namespace etpack::bindings;
  function("bundledSerialize", &bundled_serialize_js, allow_raw_pointers());
  function("bundledDeserialize", &bundled_deserialize_js, allow_raw_pointers());
  function("bundledSafetensorsHead", &bundled_safetensors_head_js, allow_raw_pointers());
}
