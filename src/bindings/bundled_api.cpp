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
//   (encode/safetensors_writer.h); the CLI's unbundle appends the bytes.
#include <emscripten/bind.h>

#include "bindings/host_call.h"
#include "bindings/marshal.h"
#include "encode/safetensors_writer.h"
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
    auto request = parse_json(request_text);
    if (!request.ok()) return make_error(ErrorCode::kInvalidArgument, "bad request: " + request.error().message);
    std::vector<SafetensorsEntry> tensors;
    if (const Json* list = request->find("tensors"); list && list->is_array()) {
      for (const Json& t : list->items()) {
        SafetensorsEntry e;
        const Json* name = t.find("name");
        const Json* dtype = t.find("dtype");
        const Json* shape = t.find("shape");
        const Json* size = t.find("size");
        if (!name || !name->is_string() || !dtype || !dtype->is_string() || !shape || !shape->is_array() || !size || !size->as_uint64())
          return make_error(ErrorCode::kInvalidArgument, "each tensor needs name, dtype, shape and size");
        e.name = name->text();
        e.dtype = dtype->text();
        for (const Json& d : shape->items()) {
          if (!d.as_uint64()) return make_error(ErrorCode::kInvalidArgument, "tensor '" + e.name + "' has a bad shape");
          e.shape.push_back(*d.as_uint64());
        }
        e.size = *size->as_uint64();
        tensors.push_back(std::move(e));
      }
    }
    std::vector<std::pair<std::string, std::string>> metadata;
    if (const Json* list = request->find("metadata"); list && list->is_array())
      for (const Json& kv : list->items())
        if (kv.is_array() && kv.items().size() == 2 && kv.items()[0].is_string() && kv.items()[1].is_string())
          metadata.emplace_back(kv.items()[0].text(), kv.items()[1].text());
    ETP_ASSIGN(std::string head, safetensors_head(tensors, metadata));
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
