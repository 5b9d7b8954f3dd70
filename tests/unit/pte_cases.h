// Every .pte of the shared artifacts and conformance vectors with the .ptd
// files it ships with, for tests that judge each file as the runtime would.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/blob.h"
#include "read/pte_reader.h"
#include "unit/test_files.h"

namespace etpack::testing {

struct PteCase {
  std::filesystem::path pte;
  std::vector<std::pair<std::string, Blob>> ptds;  // (file name, bytes)
};

// The .ptd files of a case are those next to its .pte; a deserialize case
// (18_deser_pte_X/in.pte) uses those of the serialize case X it came from.
inline std::vector<PteCase> every_pte_case() {
  namespace fs = std::filesystem;
  std::vector<fs::path> ptes;
  for (const char* root : {ETPACK_ARTIFACTS_DIR, ETPACK_CONFORMANCE_DIR})
    for (const auto& e : fs::recursive_directory_iterator(root))
      if (e.is_regular_file() && e.path().extension() == ".pte") ptes.push_back(e.path());
  std::sort(ptes.begin(), ptes.end());
  std::vector<PteCase> out;
  for (const fs::path& pte : ptes) {
    fs::path dir = pte.parent_path();
    const std::string name = dir.filename().string();
    const std::string prefix = "18_deser_pte_";
    if (name.rfind(prefix, 0) == 0) dir = dir.parent_path() / name.substr(prefix.size());
    PteCase c{pte, {}};
    std::vector<fs::path> ptds;
    if (fs::is_directory(dir))
      for (const auto& f : fs::directory_iterator(dir))
        if (f.path().extension() == ".ptd") ptds.push_back(f.path());
    std::sort(ptds.begin(), ptds.end());
    for (const fs::path& p : ptds) c.ptds.emplace_back(p.filename().string(), load_file(p));
    out.push_back(std::move(c));
  }
  return out;
}

// Whether the file's constant_segment holds the runtime's placeholder offset.
inline bool has_constant_placeholder(const Blob& pte) {
  auto read = read_pte_program(pte);
  if (!read.ok()) return false;
  const Value& cs = read->program.get("constant_segment");
  return cs.is_table() && scalar_vector_length(cs.table().get("offsets"), BaseType::kULong) > 0;
}

}  // namespace etpack::testing
