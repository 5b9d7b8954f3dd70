// libFuzzer target over everything that reads untrusted .pte/.ptd bytes:
// deserialize_pte_binary, read_pte_program, deserialize_ptd, inspect_pte,
// inspect_ptd, validate_ptd and validate_artifacts.
//
// Input: a .pte, optionally followed by kSeparator and a .ptd. Without the
// separator the whole input is tried as both (so a lone .pte or .ptd seed
// exercises its own reader). Every call must return (a value or a coded
// error): a crash, hang, leak or sanitizer report is a finding. So is a
// broken promise between the functions:
// - validate finds no error => the matching reader accepts the file;
// - the reader accepts the file => inspect summarizes it (or hits its limit).
#include <cstddef>
#include <cstdint>
#include <cstdio>
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

void broken_promise(const char* what, const std::string& detail) {
  std::fprintf(stderr, "broken promise: %s: %s\n", what, detail.c_str());
  __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto [pte, ptd] = split(data, size);

  auto pte_file = etpack::deserialize_pte_binary(pte);
  auto pte_program = etpack::read_pte_program(pte);
  auto ptd_file = etpack::deserialize_ptd(ptd);
  auto pte_summary = etpack::inspect_pte(pte);
  auto ptd_summary = etpack::inspect_ptd(ptd);
  etpack::ValidationReport pte_alone = etpack::validate_artifacts(pte, {});
  etpack::ValidationReport ptd_alone = etpack::validate_ptd("fuzz.ptd", ptd);
  etpack::ValidationReport together = etpack::validate_artifacts(pte, {{"fuzz.ptd", ptd}});
  for (const auto* summary : {&pte_summary, &ptd_summary})
    if (summary->ok()) consume(summary->value());
  for (const auto* report : {&pte_alone, &ptd_alone, &together}) consume(report->to_json());

  if (pte_alone.ok() && !pte_file.ok()) broken_promise("validate ok, deserialize_pte_binary fails", pte_file.error().message);
  if (ptd_alone.ok() && !ptd_file.ok()) broken_promise("validate_ptd ok, deserialize_ptd fails", ptd_file.error().message);
  if (pte_file.ok() && !pte_program.ok()) broken_promise("deserialize ok, read_pte_program fails", pte_program.error().message);
  if (pte_program.ok() && !pte_summary.ok() && pte_summary.error().code != etpack::ErrorCode::kLimitExceeded)
    broken_promise("read_pte_program ok, inspect_pte fails", pte_summary.error().message);
  if (ptd_file.ok() && !ptd_summary.ok() && ptd_summary.error().code != etpack::ErrorCode::kLimitExceeded)
    broken_promise("deserialize_ptd ok, inspect_ptd fails", ptd_summary.error().message);
  return 0;
}
