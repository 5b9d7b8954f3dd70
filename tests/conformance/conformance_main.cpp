// etpack-conformance DIR...: runs every conformance vector under DIR, prints
// one line per failing case and a closing "N passed, M failed" line.
// Exit status 1 on any failure (or when no case was found).
#include <cstdio>
#include <string>
#include <vector>

#include "conformance/conformance_runner.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: etpack-conformance DIR...\n");
    return 2;
  }
  std::vector<std::string> dirs(argv + 1, argv + argc);
  auto cases = etpack::conformance::find_cases(dirs);
  int passed = 0, failed = 0;
  for (const std::string& dir : cases) {
    auto r = etpack::conformance::run_case(dir);
    if (r.passed) {
      ++passed;
    } else {
      ++failed;
      std::printf("FAIL %s: %s\n", r.name.c_str(), r.detail.c_str());
    }
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return (failed == 0 && passed > 0) ? 0 : 1;
}
