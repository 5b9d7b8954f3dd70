// libFuzzer target, write and repack: repack (src/ops/repack.h) of the
// input's .pte with its .ptd (split as exercise.h splits), which reads the
// heads, plans a layout, encodes a new .pte and .ptd and validates them.
// Promises checked: no crash, no sanitizer report; every refusal is a coded
// error; repack never writes what the validator refuses (kInvalidOutput is
// a finding: the input passed validation, so its output must); an output
// reads back with deserialize_pte_binary. Save a finding under
// tests/fuzz/regressions.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "fuzz/exercise.h"
#include "ops/repack.h"

namespace {

[[noreturn]] void broken(const std::string& what) {
  std::fprintf(stderr, "broken promise: %s\n", what.c_str());
  __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace etpack;
  // Exact-size copies: reads past either file are sanitizer reports.
  auto [pte_view, ptd_view] = fuzz::split(data, size);
  std::vector<uint8_t> pte_bytes(pte_view.data(), pte_view.data() + pte_view.size());
  std::vector<uint8_t> ptd_bytes(ptd_view.data(), ptd_view.data() + ptd_view.size());
  const Blob pte = Blob::view(pte_bytes.data(), pte_bytes.size());
  const Blob ptd = Blob::view(ptd_bytes.data(), ptd_bytes.size());

  RepackOptions options;
  if (ptd_view.data() != pte_view.data()) options.data = {{"fuzz.ptd", FileSource::in_memory(ptd)}};
  options.allow_missing_data = true;
  RepackRefusal refusal;
  auto result = repack(FileSource::in_memory(pte), options, &refusal);
  if (!result.ok()) {
    if (fuzz::uncoded(result.error().code)) broken("repack uncoded: " + result.error().message);
    if (result.error().code == ErrorCode::kInvalidOutput) broken("repack wrote an invalid output: " + result.error().message);
    return 0;
  }
  auto bytes = result->artifacts.pte.to_bytes();
  if (!bytes.ok()) broken("repack's output cannot be flattened: " + bytes.error().message);
  auto again = deserialize_pte_binary(Blob::view(bytes->data(), bytes->size()));
  if (!again.ok()) broken("repack's output does not read back: " + again.error().message);
  return 0;
}
