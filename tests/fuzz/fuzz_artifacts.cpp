// libFuzzer target over everything that reads untrusted .pte/.ptd bytes:
// deserialize_pte_binary, read_pte_program, deserialize_ptd, inspect_pte,
// inspect_ptd, validate_ptd and validate_artifacts (see exercise.h for how
// an input is split and which promises are checked). A crash, hang, leak,
// sanitizer report or broken promise is a finding; save the input under
// tests/fuzz/regressions so the unit tests replay it.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "fuzz/exercise.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto [pte, ptd] = etpack::fuzz::split(data, size);
  std::vector<std::string> broken = etpack::fuzz::exercise(pte, ptd);
  if (!broken.empty()) {
    for (const std::string& b : broken) std::fprintf(stderr, "broken promise: %s\n", b.c_str());
    __builtin_trap();
  }
  return 0;
}
