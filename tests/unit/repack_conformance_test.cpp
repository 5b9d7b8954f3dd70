// Issue 10, done when: repack of every conformance .pte with its .ptd files,
// externalizing every constant, gives outputs that validate clean together,
// and every tensor's bytes (constant or EXTERNAL) equal the original's.
#include <gtest/gtest.h>

#include "repack_test_util.h"
#include "validate/validate.h"

namespace etpack {
namespace {

using namespace etpack::testing;

std::vector<std::filesystem::path> conformance_ptes() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(conformance_dir()))
    if (std::filesystem::exists(e.path() / "out.pte")) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(RepackConformance, ExternalizeEveryVectorKeepsEveryTensorsBytes) {
  std::vector<std::filesystem::path> dirs = conformance_ptes();
  ASSERT_GE(dirs.size(), 30u);
  size_t tensors = 0, external_after = 0;
  for (const auto& dir : dirs) {
    SCOPED_TRACE(dir.filename().string());
    Blob file = load_file(dir / "out.pte");
    auto data = ptds_beside(dir);
    std::vector<std::pair<std::string, Blob>> data_bytes;
    for (const auto& [name, source] : data) data_bytes.emplace_back(name, source.file);
    std::string problem;
    auto before = tensor_bytes(file, data_bytes, &problem);
    ASSERT_TRUE(problem.empty()) << problem;

    RepackOptions options;
    options.data = data;
    options.externalize = ExternalizeOptions{};
    options.keep_delegate_placement = false;  // every delegate blob into a segment
    options.config.extract_delegate_segments = true;
    RepackRefusal why;
    auto result = repack(FileSource::in_memory(file), options, &why);
    if (runtime_refuses_vector(dir)) {  // repack refuses inputs the runtime cannot load
      EXPECT_FALSE(result.ok());
      continue;
    }
    ASSERT_TRUE(result.ok()) << result.error().message;
    Outputs out = materialize(result->artifacts);

    ValidationReport report = validate_artifacts(out.pte, out.ptds);
    for (const Finding& f : report.errors) ADD_FAILURE() << f.file << ": " << f.code << ": " << f.message;
    auto after = tensor_bytes(out.pte, out.ptds, &problem);
    ASSERT_TRUE(problem.empty()) << problem;
    EXPECT_EQ(after.size(), before.size());
    for (const auto& [path, bytes] : before) {
      auto it = after.find(path);
      ASSERT_NE(it, after.end()) << path;
      EXPECT_TRUE(it->second == bytes) << path << " changed";
    }
    tensors += before.size();
    // Every output keeps the placeholder the runtime needs.
    std::vector<uint64_t> offsets = constant_offsets(out.pte);
    ASSERT_FALSE(offsets.empty());
    EXPECT_EQ(offsets[0], 0u);
    for (const MovedTensor& m : result->moved) external_after += m.paths.size();
  }
  EXPECT_GT(tensors, 20u);
  EXPECT_GT(external_after, 10u);
}

}  // namespace
}  // namespace etpack
