// The embind surface: every function takes JSON text (plus a host object for
// external bytes) and returns an Output. Nothing here throws; failures are
// Outputs with a code, which the JS glue turns into Error objects.
// This file: the Output class, writing (serializeForExecutorch,
// serializePteBinary, programToJson, ptdSerialize). Reading a file is
// read_api.cpp, the NamedDataStore store_api.cpp, repack and extract
// repack_api.cpp; the other *_api.cpp files hold one feature each.
#include <cstring>
#include <malloc.h>

#include <emscripten/bind.h>

#include "bindings/host_call.h"
#include "bindings/marshal.h"
#include "bindings/request.h"
#include "ops/deserialize.h"
#include "ops/serialize_for_executorch.h"

namespace etpack::bindings {
namespace {

using emscripten::val;

// A JS data serializer: given the payload (bytes by reference), it returns a
// reference to the bytes it wrote, which become the file unchanged.
class HostDataSerializer : public DataSerializer {
 public:
  explicit HostDataSerializer(val host) : host_(std::move(host)) {}
  Result<Cord> serialize(const DataPayload& payload) override {
    Output refs;
    Json j = Json::object();
    Json buffers = Json::array();
    for (const Blob& b : payload.buffers) {
      Json ref = Json::object();
      if (b.is_external()) {
        ref.set("src", Json::unsigned_integer(b.external_info()->source));
        ref.set("offset", Json::unsigned_integer(b.external_info()->offset));
        ref.set("size", Json::unsigned_integer(b.size()));
      } else {
        ref.set("ptr", Json::unsigned_integer(reinterpret_cast<uintptr_t>(b.data())));
        ref.set("len", Json::unsigned_integer(b.size()));
      }
      buffers.push(std::move(ref));
    }
    j.set("buffers", std::move(buffers));
    j.set("named_data", entries_to_json(payload.named_data));
    val result = host_.call<val>("serializeData", write_json(j));
    if (!result.isString())
      return make_error(ErrorCode::kInvalidArgument, "the data serializer did not return bytes");
    auto reference = parse_json(result.as<std::string>());
    if (!reference.ok()) return make_error(ErrorCode::kInternal, "data serializer result: " + reference.error().message);
    if (const Json* err = reference->find("error"))
      return make_error(ErrorCode::kInvalidArgument, "the data serializer failed: " + err->text());
    ETP_ASSIGN(Blob bytes, blob_from_json(*reference));
    Cord cord;
    cord.append(bytes);
    return cord;
  }

 private:
  val host_;
};

Status fill_emitter(const Json& request, EmitterOutput& emitter) {
  if (const Json* m = request.find("mutable_data"); m && m->is_array()) {
    emitter.has_mutable_data = true;
    for (const Json& ref : m->items()) {
      ETP_ASSIGN(Blob b, blob_from_json(ref));
      emitter.mutable_data.push_back(std::move(b));
    }
  }
  if (const Json* map = request.find("external_constant_map"); map && map->is_object()) {
    for (const auto& [tag, fqns] : map->members()) {
      std::vector<std::pair<std::string, uint32_t>> list;
      for (const auto& [fqn, index] : fqns.members()) {
        auto i = index.as_uint64();
        if (!i || *i > UINT32_MAX) return make_error(ErrorCode::kInvalidArgument, "externalConstantMap['" + tag + "']['" + fqn + "'] must be an index");
        list.emplace_back(fqn, static_cast<uint32_t>(*i));
      }
      emitter.external_constant_map.emplace_back(tag, std::move(list));
    }
  }
  if (const Json* buffers = request.find("external_constant_buffer"); buffers && buffers->is_array()) {
    for (const Json& ref : buffers->items()) {
      ETP_ASSIGN(Blob b, blob_from_json(ref));
      emitter.external_constant_buffer.push_back(std::move(b));
    }
  }
  return {};
}

// Program JSON text (or the value stream of a program object, as the
// request's "program_form" says) the glue put into the heap (TextEncoder is far
// faster than embind's std::string conversion for megabytes of text); it
// stays valid for the call.
std::string_view heap_text(double ptr, double len) {
  return {reinterpret_cast<const char*>(static_cast<uintptr_t>(ptr)), static_cast<size_t>(len)};
}

// Once the program text is parsed (the model holds copies of what it needs)
// its room goes back to malloc, so the encoder's buffers reuse it instead of
// growing the heap past text + model + output (a 200k-value program: 22 MB
// of text). Shrunk in place, not freed: the glue frees every pointer it put
// in the heap after the call, this one included. realloc_in_place is
// dlmalloc's (Emscripten's malloc); it never moves the block.
extern "C" void* realloc_in_place(void* ptr, size_t size);
void release_heap_text(std::string_view text) {
  if (!text.empty()) realloc_in_place(const_cast<char*>(text.data()), 1);
}

Output* serialize_for_executorch_js(double text_ptr, double text_len, std::string request_text, val host) {
  const std::string_view program_text = heap_text(text_ptr, text_len);
  HostScope scope(host);
  return run_output([&](Output& out) -> Status {
    ETP_ASSIGN(Json request, parse_request(request_text));
    EmitterOutput emitter;
    std::optional<StreamPrefix> plans;  // the execution plans, encoded already (marshal.h)
    ETP_ASSIGN(emitter.program, program_for_pte(program_text, request, plans));
    release_heap_text(program_text);
    ETP_TRY(fill_emitter(request, emitter));
    ETP_ASSIGN(PteConfig config, pte_config_from_json(request.find("config")));
    std::optional<NamedDataStoreOutput> store;
    if (const Json* s = request.find("store"); s && !s->is_null()) {
      ETP_ASSIGN(NamedDataStoreOutput parsed, store_output_from_json(*s));
      store = std::move(parsed);
    }
    FlatTensorSerializer flat(data_config_from_json(request.find("data_serializer_config")));
    HostDataSerializer custom(host);
    const Json* use_custom = request.find("custom_serializer");
    DataSerializer& serializer = (use_custom && use_custom->bool_value()) ? static_cast<DataSerializer&>(custom)
                                                                          : static_cast<DataSerializer&>(flat);
    ETP_ASSIGN(SerializedArtifacts artifacts, serialize_for_executorch(emitter, config, serializer, store ? &*store : nullptr,
                                                                               plans ? &plans->encoded : nullptr));
    Json tags = Json::array();
    out.add_cord(std::move(artifacts.pte));
    for (auto& [tag, cord] : artifacts.ptd) {
      tags.push(Json::string(tag));
      out.add_cord(std::move(cord));
    }
    Json result = Json::object();
    result.set("ptd_tags", std::move(tags));
    out.set_json(write_json(result));
    return {};
  });
}

Output* serialize_pte_binary_js(double text_ptr, double text_len, std::string request_text, val host) {
  const std::string_view program_text = heap_text(text_ptr, text_len);
  HostScope scope(host);
  return run_output([&](Output& out) -> Status {
    ETP_ASSIGN(Json request, parse_request(request_text));
    EmitterOutput emitter;
    std::optional<StreamPrefix> plans;  // the execution plans, encoded already (marshal.h)
    ETP_ASSIGN(TableValue program, program_for_pte(program_text, request, plans));
    release_heap_text(program_text);
    ETP_TRY(fill_emitter(request, emitter));
    ETP_ASSIGN(PteConfig config, pte_config_from_json(request.find("config")));
    std::optional<NamedDataStoreOutput> named;
    if (const Json* s = request.find("named_data"); s && !s->is_null()) {
      ETP_ASSIGN(NamedDataStoreOutput parsed, store_output_from_json(*s));
      named = std::move(parsed);
    }
    ETP_ASSIGN(Cord pte, serialize_pte_binary(program, emitter.has_mutable_data ? &emitter.mutable_data : nullptr,
                                              named ? &*named : nullptr, config, plans ? &plans->encoded : nullptr));
    out.add_cord(std::move(pte));
    out.set_json("{}");
    return {};
  });
}

// Bytes malloc holds right now (the benchmark's check that a call gives
// back all it took; the wasm memory itself never shrinks).
double heap_in_use_js() { return static_cast<double>(mallinfo().uordblks); }

Output* program_to_json_js(double text_ptr, double text_len, val host) {
  const std::string_view program_text = heap_text(text_ptr, text_len);
  HostScope scope(host);
  return run_output([&](Output& out) -> Status {
    ETP_ASSIGN(TableValue program, program_from_text(program_text));
    release_heap_text(program_text);
    // The document holds all the model did: the model goes before the text
    // is written, so the two never share the heap (a 200k-value program:
    // model ~80 MB, text ~22 MB).
    Json document = table_to_json(program);
    program = TableValue(program.def);
    out.set_json(write_json(document));
    return {};
  });
}

Output* ptd_serialize_js(std::string request_text, val host) {
  HostScope scope(host);
  return run_output([&](Output& out) -> Status {
    ETP_ASSIGN(Json request, parse_request(request_text));
    DataPayload payload;
    const Json* buffers = request.find("buffers");
    if (buffers == nullptr || !buffers->is_array()) return make_error(ErrorCode::kInvalidArgument, "payload needs buffers");
    for (const Json& ref : buffers->items()) {
      ETP_ASSIGN(Blob b, blob_from_json(ref));
      payload.buffers.push_back(std::move(b));
    }
    const Json* named = request.find("named_data");
    if (named == nullptr) return make_error(ErrorCode::kInvalidArgument, "payload needs namedData");
    ETP_ASSIGN(payload.named_data, entries_from_json(*named));
    FlatTensorSerializer serializer(data_config_from_json(request.find("config")));
    ETP_ASSIGN(Cord cord, serializer.serialize(payload));
    out.add_cord(std::move(cord));
    out.set_json("{}");
    return {};
  });
}

}  // namespace
}  // namespace etpack::bindings

EMSCRIPTEN_BINDINGS(executorch_pack) {
  using namespace emscripten;
  using namespace etpack::bindings;
  class_<Output>("Output")
      .function("ok", &Output::ok)
      .function("code", &Output::code)
      .function("message", &Output::message)
      .function("json", &Output::json)
      .function("jsonPtr", &Output::json_ptr)
      .function("jsonSize", &Output::json_size)
      .function("textCount", &Output::text_count)
      .function("textPtr", &Output::text_ptr)
      .function("textSize", &Output::text_size)
      .function("cordCount", &Output::cord_count)
      .function("cordSize", &Output::cord_size)
      .function("cordPieces", &Output::cord_pieces)
      .function("blobList", &Output::blob_list);
  function("serializeForExecutorch", &serialize_for_executorch_js, allow_raw_pointers());
  function("serializePteBinary", &serialize_pte_binary_js, allow_raw_pointers());
  function("programToJson", &program_to_json_js, allow_raw_pointers());
  function("ptdSerialize", &ptd_serialize_js, allow_raw_pointers());
  function("heapInUse", &heap_in_use_js);
}
