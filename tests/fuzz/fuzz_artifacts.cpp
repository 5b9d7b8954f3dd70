// libFuzzer target over everything that reads untrusted .pte/.ptd bytes:
// deserialize_pte_binary, read_pte_program, deserialize_ptd, inspect_pte,
// inspect_ptd, validate_ptd and validate_artifacts.
//
// Input: a .pte, optionally followed by kSeparator and a .ptd. Without the
// separator the whole input is tried as both (so a lone .pte or .ptd seed
// exercises its own reader). Every call must return (a value or a coded
// error): a crash, hang, leak or sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/blob.h"
#include "core/json.h"
#include "read/inspect.h"
#include "read/ptd_reader.h"
#include "read/pte_reader.h"
#include "read/validate.h"

namespace {

// Keep in sync with scripts/fuzz.sh, which builds pte+ptd seeds with it.
constexpr char kSeparator[] = "\n--etpack-ptd--\n";
constexpr size_t kSeparatorSize = sizeof(kSeparator) - 1;

std::pair<etpack::Blob, etpack::Blob> split(const uint8_t* data, size_t size) {
  const uint8_t* end = data + size;
  for (const uint8_t* p = data; size >= kSeparatorSize && p <= end - kSeparatorSize; ++p) {
    if (std::memcmp(p, kSeparator, kSeparatorSize) == 0) {
      size_t head = static_cast<size_t>(p - data);
      return {etpack::Blob::view(data, head), etpack::Blob::view(p + kSeparatorSize, size - head - kSeparatorSize)};
    }
  }
  etpack::Blob whole = etpack::Blob::view(data, size);
  return {whole, whole};
}

// Touches a result so the work cannot be optimized away.
volatile size_t g_sink = 0;

void consume(const etpack::Json& j) { g_sink = g_sink + etpack::write_json(j).size(); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto [pte, ptd] = split(data, size);

  if (auto r = etpack::deserialize_pte_binary(pte); !r.ok()) g_sink = g_sink + r.error().message.size();
  if (auto r = etpack::read_pte_program(pte); !r.ok()) g_sink = g_sink + r.error().message.size();
  if (auto r = etpack::deserialize_ptd(ptd); r.ok()) g_sink = g_sink + r->payload.buffers.size();
  if (auto r = etpack::inspect_pte(pte); r.ok()) consume(r.value());
  if (auto r = etpack::inspect_ptd(ptd); r.ok()) consume(r.value());
  consume(etpack::validate_ptd("fuzz.ptd", ptd).to_json());
  consume(etpack::validate_artifacts(pte, {{"fuzz.ptd", ptd}}).to_json());
  consume(etpack::validate_artifacts(pte, {}).to_json());
  return 0;
}
