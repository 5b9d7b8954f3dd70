// libFuzzer target, write and repack: repack (src/ops/repack.h) of the
// input's .pte with its .ptd (split as exercise.h splits), which reads the
// heads, plans a layout, encodes a new .pte and .ptd and validates them.
// Promises checked (fuzz/exercise_repack.h): no crash, no sanitizer report;
// every refusal is a coded error; repack never writes what the validator
// refuses; an output reads back with deserialize_pte_binary. Save a finding
// under tests/fuzz/regressions (CorruptFiles.FuzzRegressionsStayFixed
// replays these promises too).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "fuzz/exercise_repack.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace etpack;
  // Exact-size copies: reads past either file are sanitizer reports.
  auto [pte_view, ptd_view] = fuzz::split(data, size);
  std::vector<uint8_t> pte_bytes(pte_view.data(), pte_view.data() + pte_view.size());
  std::vector<uint8_t> ptd_bytes(ptd_view.data(), ptd_view.data() + ptd_view.size());
  const Blob pte = Blob::view(pte_bytes.data(), pte_bytes.size());
  // No separator: the whole input is both, as one buffer (no .ptd given).
  const Blob ptd = ptd_view.data() == pte_view.data() ? pte : Blob::view(ptd_bytes.data(), ptd_bytes.size());
  for (const std::string& what : fuzz::exercise_repack(pte, ptd)) {
    std::fprintf(stderr, "broken promise: %s\n", what.c_str());
    __builtin_trap();
  }
  return 0;
}
