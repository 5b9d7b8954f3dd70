// The embind surface of ETDump (issue 31): `etdump(op, request, host)`.
//   "read":    {"etdp": file}                 -> the file as flatc decodes it
//   "profile": {"etdp": file, "pte": file, "methods": [name | null, ...],
//               "method": name (every block the list leaves unnamed)}
//              -> the join and its statistics (ops/profile.h); with
//              host.profileEvents(block, text) the events go there, a page
//              (a JSON array) at a time, and each block's "events" is []
// `file` is the glue's {head, file} request (bindings/request.h); the ops
// are ops/etdump.h. Kept beside api.cpp, in its own EMSCRIPTEN_BINDINGS
// block.
#include <emscripten/bind.h>

#include "bindings/host_call.h"
#include "bindings/request.h"
#include "ops/etdump.h"

namespace etpack::bindings {
namespace {

using emscripten::val;

Output* etdump_js(std::string op, std::string request_text, val host) {
  HostScope scope(host);
  return run_output([&](Output& reply) -> Status {
    Output* out = &reply;
    ETP_ASSIGN(Json request, parse_request(request_text));
    ETP_ASSIGN(FileSource etdp, file_source_member(request, "etdp"));
    if (op == "read") {
      ETP_ASSIGN(std::string json, etdump_read_json(etdp));
      out->set_json(std::move(json));
      return {};
    }
    if (op == "profile") {
      ETP_ASSIGN(FileSource pte, file_source_member(request, "pte"));
      ETP_ASSIGN(ProfileOptions options, profile_options_from_json(request));
      // A host that reads pages of events (profile.mjs) gets them as they
      // are written: the whole text is never in the heap or in JS at once.
      if (host["profileEvents"].typeOf().as<std::string>() == "function")
        options.event_pages = [&host](size_t block, const std::string& events) {
          host.call<void>("profileEvents", static_cast<double>(block), events);
        };
      ETP_ASSIGN(std::string json, etdump_profile_json(etdp, pte, options));
      out->set_json(std::move(json));
      return {};
    }
    return make_error(ErrorCode::kInvalidArgument, "unknown etdump operation " + op);
  });
}

}  // namespace
}  // namespace etpack::bindings

EMSCRIPTEN_BINDINGS(executorch_pack_etdump) {
  using namespace emscripten;
  using namespace etpack::bindings;
  function("etdump", &etdump_js, allow_raw_pointers());
}
