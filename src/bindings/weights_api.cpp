// The embind surface of weights, safetensors and diff's hashing (issue 28):
// `weights(op, request, host)` runs one operation of ops/weights_ops.h,
// named by `op` in the table below: its request parsed by the one request
// parser (bindings/request.h), its reply JSON and blobs handed back. The JS
// glue (npm/src/weights.mjs, safetensors.mjs, diff.mjs, program-tensors.mjs)
// then carries out the plan by moving bytes. Byte inputs are heap
// references {"ptr", "len"} the glue copied in (safetensors headers, tensors
// to permute) and frees after the call. Kept beside api.cpp, in its own
// EMSCRIPTEN_BINDINGS block, so the two evolve without touching.
#include <emscripten/bind.h>

#include "bindings/host_call.h"
#include "bindings/request.h"
#include "core/sha256.h"
#include "ops/weights_ops.h"

namespace etpack::bindings {
namespace {

using emscripten::val;

Result<WeightsReply> header_size(const Json& request) {
  ETP_ASSIGN(std::string file, text_field(request, "file"));
  ETP_ASSIGN(uint64_t size, uint_field(request, "size"));
  ETP_ASSIGN(std::string_view probe, bytes_field(request, "probe"));
  return weights_header_size(file, size, probe);
}

Result<WeightsReply> header(const Json& request) {
  ETP_ASSIGN(SafetensorsHeaderBytes bytes, safetensors_header_bytes(request));
  return weights_header(bytes);
}

Result<WeightsReply> shard_index(const Json& request) {  // {file, text}
  ETP_ASSIGN(std::string file, text_field(request, "file"));
  ETP_ASSIGN(std::string_view text, bytes_field(request, "text"));
  return weights_index(file, text);
}

Result<WeightsReply> program_tensors(const Json& request) {  // {pte}
  ETP_ASSIGN(FileSource pte, weights_file(request, "pte", "program_tensors"));
  return weights_program_tensors(pte);
}

Result<WeightsReply> ptd_keys(const Json& request) {  // {ptd}
  ETP_ASSIGN(FileSource ptd, weights_file(request, "ptd", "ptd_keys"));
  return weights_ptd_keys(ptd);
}

Result<WeightsReply> nan_values(const Json& request) {  // {pte}
  ETP_ASSIGN(FileSource pte, weights_file(request, "pte", "nan_values"));
  return weights_nan_values(pte);
}

Result<WeightsReply> match(const Json& request) {
  ETP_ASSIGN(WeightsMatchRequest parsed, weights_match_request(request));
  return weights_match(parsed);
}

Result<WeightsReply> export_plan(const Json& request) {
  ETP_ASSIGN(WeightsExportRequest parsed, weights_export_request(request));
  return weights_export(parsed);
}

Result<WeightsReply> permute(const Json& request) {  // {bytes, scalar_type, sizes, dim_order, to_row_major}
  ETP_ASSIGN(std::string_view bytes, bytes_field(request, "bytes"));
  ETP_ASSIGN(NamedTensor layout, named_tensor_from_json(request));
  const Json* dir = request.find("to_row_major");
  return weights_permute(bytes, layout, dir && dir->is_bool() && dir->bool_value());
}

Result<WeightsReply> range_plan(const Json& request) {  // {size, ranges}
  ETP_ASSIGN(uint64_t size, uint_field(request, "size"));
  ETP_ASSIGN(std::vector<ByteRange> ranges, byte_ranges_request(request));
  return weights_range_plan(ranges, size);
}

struct Operation {
  const char* name;
  Result<WeightsReply> (*run)(const Json& request);
};
constexpr Operation kOperations[] = {
    {"header_size", header_size},
    {"header", header},
    {"index", shard_index},
    {"program_tensors", program_tensors},
    {"ptd_keys", ptd_keys},
    {"nan_values", nan_values},
    {"match", match},
    {"export", export_plan},
    {"permute", permute},
    {"range_plan", range_plan},
};

Output* weights_js(std::string op, std::string request_text, val host) {
  HostScope scope(host);
  return run_output([&](Output& out) -> Status {
    ETP_ASSIGN(Json request, parse_request(request_text));
    for (const Operation& o : kOperations) {
      if (op != o.name) continue;
      ETP_ASSIGN(WeightsReply reply, o.run(request));
      for (Blob& b : reply.blobs) out.add_blob(std::move(b));
      out.set_json(std::move(reply.json));
      return {};
    }
    return make_error(ErrorCode::kInvalidArgument, "unknown weights operation " + op);
  });
}

// SHA-256 whose state can be copied mid-stream (diff's shared-start ranges),
// for hosts without a synchronous, copyable hash (browsers).
class Sha256State {
 public:
  void update(double ptr, double len) {
    hasher_.update(reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(ptr)), static_cast<size_t>(len));
  }
  std::string finish() {
    auto d = hasher_.finish();
    return to_hex(d.data(), d.size());
  }
  Sha256State* copy() const { return new Sha256State(*this); }

 private:
  Sha256 hasher_;
};

}  // namespace
}  // namespace etpack::bindings

EMSCRIPTEN_BINDINGS(executorch_pack_weights) {
  using namespace emscripten;
  using namespace etpack::bindings;
  function("weights", &weights_js, allow_raw_pointers());
  class_<Sha256State>("Sha256State")
      .constructor<>()
      .function("update", &Sha256State::update)
      .function("finish", &Sha256State::finish)
      .function("copy", &Sha256State::copy, allow_raw_pointers());
}
