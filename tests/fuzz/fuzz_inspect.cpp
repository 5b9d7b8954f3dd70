// libFuzzer target, inspect and graph: inspect_pte_reply, inspect_ptd_reply
// (from whole files and from heads, with the padding finder the JS API
// passes), the summaries made from the whole
// files' replies, and the plan graph with its DOT and Mermaid text
// (exercise.h's exercise_inspect: how an input
// is split and which promises are checked). A crash, hang, leak, sanitizer
// report or broken promise is a finding; save the input under
// tests/fuzz/regressions so the unit tests replay it.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "fuzz/exercise.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto [pte, ptd] = etpack::fuzz::split(data, size);
  std::vector<std::string> broken;
  etpack::fuzz::exercise_inspect(pte, ptd, broken);
  for (const std::string& b : broken) std::fprintf(stderr, "broken promise: %s\n", b.c_str());
  if (!broken.empty()) __builtin_trap();
  return 0;
}
