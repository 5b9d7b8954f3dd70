// The embind surface of ETDump (issue 31): `etdump(op, request, host)`.
//   "read":    {"etdp": file}                 -> the file as flatc decodes it
//   "profile": {"etdp": file, "pte": file, "methods": [name | null, ...],
//               "method": name (every block the list leaves unnamed)}
//              -> the join and its statistics (ops/profile.h)
// `file` is the glue's {head, file} request; for an .etdp the head is the
// whole flatbuffer (ops/deserialize.cpp's head size), read in place. Kept
// beside api.cpp, in its own EMSCRIPTEN_BINDINGS block.
#include <emscripten/bind.h>

#include "bindings/host_call.h"
#include "ops/profile.h"
#include "read/etdump_reader.h"
#include "read/pte_reader.h"

namespace etpack::bindings {
namespace {

using emscripten::val;

Result<Blob> head_of(const Json& request, const char* key) {
  const Json* file = request.find(key);
  const Json* head = file ? file->find("head") : nullptr;
  if (head == nullptr) return make_error(ErrorCode::kInvalidArgument, std::string("request lacks ") + key + ".head");
  ETP_ASSIGN(Blob blob, blob_from_json(*head));
  if (blob.is_external()) return make_error(ErrorCode::kInvalidArgument, std::string(key) + ".head must be heap bytes");
  return blob;
}

Result<ProfileOptions> profile_options(const Json& request) {
  ProfileOptions options;
  if (const Json* all = request.find("method"); all && all->is_string()) options.all_blocks = all->text();
  const Json* methods = request.find("methods");
  if (methods == nullptr || methods->is_null()) return options;
  if (!methods->is_array()) return make_error(ErrorCode::kInvalidArgument, "methods must be an array");
  for (const Json& m : methods->items()) {
    if (m.is_null()) options.methods.emplace_back(std::nullopt);
    else if (m.is_string()) options.methods.emplace_back(m.text());
    else return make_error(ErrorCode::kInvalidArgument, "methods holds names or null");
  }
  return options;
}

Output* etdump_js(std::string op, std::string request_text, val host) {
  HostScope scope(host);
  return run_output([&](Output& reply) -> Status {
    Output* out = &reply;
    auto request = parse_json(request_text);
    if (!request.ok()) return make_error(ErrorCode::kInvalidArgument, "bad request: " + request.error().message);
    ETP_ASSIGN(Blob etdp, head_of(*request, "etdp"));
    ETP_ASSIGN(EtdumpFile file, read_etdump(etdp));
    if (op == "read") {
      out->set_json(etdump_json(file));
      return {};
    }
    if (op == "profile") {
      ETP_ASSIGN(Blob pte_head, head_of(*request, "pte"));
      const Json* pte_file = request->find("pte")->find("file");
      if (pte_file == nullptr) return make_error(ErrorCode::kInvalidArgument, "request lacks pte.file");
      ETP_ASSIGN(Blob pte, blob_from_json(*pte_file));
      ETP_ASSIGN(PteFile program, read_pte_program(pte_head, pte.size()));
      ETP_ASSIGN(ProfileOptions options, profile_options(*request));
      ETP_ASSIGN(std::string json, profile_json(file, program.program, options));
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
