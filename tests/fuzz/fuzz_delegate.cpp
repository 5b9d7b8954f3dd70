// libFuzzer target for the delegate payload decoders (src/read/delegate/,
// format/payload_kinds.h): the first byte picks the backend id the blob is
// decoded for (or none: the kind by magic), the rest is the blob. Promises
// checked: a failure is never kInternal; a decoded payload's JSON parses;
// the same blob decoded by magic, when it has a kind, decodes to that kind.
// A crash, hang, sanitizer report or broken promise is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "core/json.h"
#include "read/delegate/delegate_payload.h"

namespace {

void broken(const char* what) {
  std::fprintf(stderr, "broken promise: %s\n", what);
  __builtin_trap();
}

const char* const kBackends[] = {"",           "XnnpackBackend", "VulkanBackend", "MPSBackend",   "MLXBackend",
                                 "NativeBackend", "CoreMLBackend", "QnnBackend",    "EthosUBackend", "OtherBackend"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace etpack;
  if (size == 0) return 0;
  const char* backend = kBackends[data[0] % (sizeof kBackends / sizeof kBackends[0])];
  const Blob blob = Blob::view(data + 1, size - 1);
  auto decoded = decode_delegate_payload(blob, backend);
  if (!decoded.ok()) {
    if (decoded.error().code == ErrorCode::kInternal) broken("kInternal from a decoder");
    return 0;
  }
  if (!parse_json(delegate_payload_json(*decoded)).ok()) broken("the payload JSON does not parse");
  if (decoded->kind) {
    auto again = decode_delegate_payload(blob, "");
    if (again.ok() && again->kind && payload_kind(*again->kind).name != payload_kind(*decoded->kind).name &&
        *backend == '\0')
      broken("two decodes by magic disagree");
  }
  return 0;
}
