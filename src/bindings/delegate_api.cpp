// The embind surface of delegate payloads (issue 39):
//   decodeDelegate({"blob": heap bytes, "backend": id | ""})
//     -> {"kind", "header", "graph" | "content"} (ops/decode_delegate.h)
//   delegateKeysGuard({"pte": {head, file}, "held": [key, ...], "outputs": text,
//                      "pteNamedDataKept": bool})
//     -> {"keys": []} when every named-data key the .pte's delegates look up
//     is in `held` (the keys the files about to be written hold) or, with
//     pteNamedDataKept, in the .pte's own named_data; else the error
//     MISSING_DELEGATE_DATA with {"keys"} (ops/delegate_keys_guard.h)
// Kept beside api.cpp, in its own EMSCRIPTEN_BINDINGS block.
#include <emscripten/bind.h>

#include "bindings/host_call.h"
#include "bindings/request.h"
#include "ops/decode_delegate.h"
#include "ops/delegate_keys_guard.h"

#include <set>

namespace etpack::bindings {
namespace {

using emscripten::val;

Output* decode_delegate_js(std::string request_text, val host) {
  HostScope scope(host);
  return run_output([&](Output& out) -> Status {
    auto request = parse_json(request_text);
    if (!request.ok()) return make_error(ErrorCode::kInvalidArgument, "bad request: " + request.error().message);
    const Json* blob = request->find("blob");
    if (blob == nullptr) return make_error(ErrorCode::kInvalidArgument, "request lacks blob");
    ETP_ASSIGN(Blob bytes, blob_from_json(*blob));
    std::string backend;
    if (const Json* b = request->find("backend"); b && b->is_string()) backend = b->text();
    ETP_ASSIGN(std::string json, decode_delegate_json(bytes, backend));
    out.set_json(std::move(json));
    return {};
  });
}

Output* delegate_keys_guard_js(std::string request_text, val host) {
  HostScope scope(host);
  return run_output([&](Output& out) -> Status {
    auto request = parse_json(request_text);
    if (!request.ok()) return make_error(ErrorCode::kInvalidArgument, "bad request: " + request.error().message);
    ETP_ASSIGN(FileSource pte, file_source_member(*request, "pte"));
    const Json* held = request->find("held");
    const Json* outputs = request->find("outputs");
    if (held == nullptr || !held->is_array() || outputs == nullptr || !outputs->is_string())
      return make_error(ErrorCode::kInvalidArgument, "request needs held (an array of keys) and outputs (text)");
    std::set<std::string> keys;
    for (const Json& k : held->items())
      if (k.is_string()) keys.insert(k.text());
    ETP_ASSIGN(DelegateKeyNeeds found, delegate_key_needs(pte));
    if (const Json* kept = request->find("pteNamedDataKept"); kept && kept->is_bool() && kept->bool_value())
      keys.insert(found.pte_named_keys.begin(), found.pte_named_keys.end());
    std::vector<std::string> missing;
    Status guarded = guard_delegate_keys(found.needs, [&](const std::string& k) { return keys.count(k) != 0; },
                                         outputs->text(), &missing);
    Json j = Json::object();
    Json list = Json::array();
    for (const std::string& k : missing) list.push(Json::string(k));
    j.set("keys", std::move(list));
    out.set_json(write_json(j));
    return guarded;
  });
}

}  // namespace
}  // namespace etpack::bindings

EMSCRIPTEN_BINDINGS(executorch_pack_delegate) {
  using namespace emscripten;
  using namespace etpack::bindings;
  function("decodeDelegate", &decode_delegate_js, allow_raw_pointers());
  function("delegateKeysGuard", &delegate_keys_guard_js, allow_raw_pointers());
}
