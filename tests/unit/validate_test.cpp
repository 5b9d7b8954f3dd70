// validate: every real artifact and conformance output is clean; each
// serialize case's .pte validates with its .ptd files, external tensors
// resolved; hand-made defects give their codes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/le_bytes.h"
#include "read/validate.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;

Blob load(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return Blob::own(std::move(bytes));
}

std::string describe(const ValidationReport& r) { return write_json(r.to_json()); }

std::vector<fs::path> files_with(const fs::path& dir, const std::string& ext) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ext) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Validate, EveryArtifactIsClean) {
  auto files = files_with(ETPACK_ARTIFACTS_DIR, ".pte");
  ASSERT_EQ(files.size(), 3u);
  for (const auto& f : files) {
    ValidationReport r = validate_artifacts(load(f), {});
    EXPECT_TRUE(r.ok()) << f << ": " << describe(r);
    EXPECT_TRUE(r.warnings.empty()) << f << ": " << describe(r);
  }
}

TEST(Validate, EveryConformancePteIsClean) {
  auto files = files_with(ETPACK_CONFORMANCE_DIR, ".pte");
  ASSERT_GT(files.size(), 30u);
  for (const auto& f : files) {
    ValidationReport r = validate_artifacts(load(f), {});
    EXPECT_TRUE(r.ok()) << f << ": " << describe(r);
    for (const Finding& w : r.warnings)
      EXPECT_EQ(w.code, finding::kExternalTensorUnresolved) << f << ": " << describe(r);
  }
}

TEST(Validate, EveryConformancePtdIsClean) {
  auto files = files_with(ETPACK_CONFORMANCE_DIR, ".ptd");
  ASSERT_GT(files.size(), 5u);
  for (const auto& f : files) {
    ValidationReport r = validate_ptd(f.filename().string(), load(f));
    EXPECT_TRUE(r.ok()) << f << ": " << describe(r);
    EXPECT_TRUE(r.warnings.empty()) << f << ": " << describe(r);
  }
}

// Every serialize case: out.pte with all its .ptd files resolves every
// EXTERNAL tensor; without them, the same tensors are reported unresolved.
TEST(Validate, EveryConformancePteResolvesWithItsPtds) {
  size_t cases = 0, with_externals = 0;
  for (const auto& dir : fs::directory_iterator(ETPACK_CONFORMANCE_DIR)) {
    fs::path case_json = dir.path() / "case.json";
    if (!fs::exists(case_json) || !fs::exists(dir.path() / "out.pte")) continue;
    Blob text = load(case_json);
    auto parsed = parse_json(std::string_view(reinterpret_cast<const char*>(text.data()), text.size()));
    ASSERT_TRUE(parsed.ok()) << case_json;
    const Json* expected = parsed->find("expected");
    ASSERT_NE(expected, nullptr);
    std::vector<std::pair<std::string, Blob>> ptds;
    if (const Json* ptd = expected->find("ptd"); ptd != nullptr && ptd->is_object())
      for (const auto& [tag, file] : ptd->members()) ptds.emplace_back(file.text(), load(dir.path() / file.text()));
    ++cases;
    Blob pte = load(dir.path() / "out.pte");
    ValidationReport alone = validate_artifacts(pte, {});
    ValidationReport together = validate_artifacts(pte, ptds);
    EXPECT_TRUE(together.ok()) << dir.path() << ": " << describe(together);
    EXPECT_TRUE(together.warnings.empty()) << dir.path() << ": " << describe(together);
    if (!alone.warnings.empty()) {
      ++with_externals;
      EXPECT_FALSE(ptds.empty()) << dir.path();
    }
  }
  EXPECT_GT(cases, 25u);
  EXPECT_GE(with_externals, 4u);  // 11, 12a, 12b, 13
}

}  // namespace
}  // namespace etpack
