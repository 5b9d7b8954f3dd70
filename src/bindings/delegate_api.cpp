// The embind surface of delegate payloads (issue 39):
//   decodeDelegate({"blob": heap bytes, "backend": id | ""})
//     -> {"kind", "header", "graph" | "content"} (ops/decode_delegate.h)
// Kept beside api.cpp, in its own EMSCRIPTEN_BINDINGS block.
#include <emscripten/bind.h>

#include "bindings/host_call.h"
#include "ops/decode_delegate.h"

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

}  // namespace
}  // namespace etpack::bindings

EMSCRIPTEN_BINDINGS(executorch_pack_delegate) {
  using namespace emscripten;
  using namespace etpack::bindings;
  function("decodeDelegate", &decode_delegate_js, allow_raw_pointers());
}
