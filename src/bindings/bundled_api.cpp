// The embind surface of BundledProgram (.bpte, issue 27), beside api.cpp in
// its own EMSCRIPTEN_BINDINGS block. inspect and validate of a .bpte go
// through api.cpp's inspect/validate (ops/inspect.cpp and ops/validate.cpp
// dispatch on the file kind); here are the two calls of its own:
// - bundledSerialize(textPtr, textLen, host): the bundle as JSON text (the
//   glue's programPieces: byte fields as references) -> one cord, the file.
// - bundledDeserialize(request, host): {head, file} as the other readers
//   take them -> the bundle as JSON with BigInt markers, byte vectors
//   (program, tensor data) as returned blobs: slices of the input.
#include <emscripten/bind.h>

#include "bindings/host_call.h"
#include "bindings/marshal.h"
#include "ops/bundled_program.h"

namespace etpack::bindings {
namespace {

using emscripten::val;

template <typename Body>
Output* run_bundled(Body body) {
  auto* out = new Output();
  Status status = body(*out);
  if (!status.ok()) out->fail(status.take_error());
  return out;
}

Output* bundled_serialize_js(double text_ptr, double text_len, val host) {
  // The text the glue put into the heap; it stays valid for the call.
  const std::string_view text(reinterpret_cast<const char*>(static_cast<uintptr_t>(text_ptr)), static_cast<size_t>(text_len));
  HostScope scope(host);
  return run_bundled([&](Output& out) -> Status {
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
  return run_bundled([&](Output& out) -> Status {
    auto request = parse_json(request_text);
    if (!request.ok()) return make_error(ErrorCode::kInvalidArgument, "bad request: " + request.error().message);
    const Json* head = request->find("head");
    const Json* file = request->find("file");
    if (head == nullptr || file == nullptr) return make_error(ErrorCode::kInvalidArgument, "request needs head and file");
    FileSource source;
    ETP_ASSIGN(source.head, blob_from_json(*head));
    ETP_ASSIGN(source.file, blob_from_json(*file));
    ETP_ASSIGN(BundledFile bundled, deserialize_bundled_program(source));
    ToJsonOptions options;
    options.js_bigint_markers = true;
    // Byte vectors go back by reference: the glue copies each one out of
    // the heap (or views the caller's own bytes) once.
    options.byte_vector = [&out](const FieldDef&, const Blob& bytes) -> std::optional<Json> {
      return blob_marker(out.add_blob(bytes));
    };
    out.set_json(write_json(table_to_json(bundled.bundle, options)));
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
}
