// graph's JSON streamed (GraphOptions::json_sink): byte for byte the text
// made whole, given only when nothing can fail (an unknown method is refused
// before the first byte), and made whole instead when delegates are expanded.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "inspect/inspect.h"
#include "ops/graph.h"
#include "test_files.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;

TEST(GraphStream, SameTextAsMadeWhole) {
  size_t streamed = 0;
  for (const fs::path& root : {fs::path(ETPACK_CONFORMANCE_DIR), fs::path(ETPACK_ARTIFACTS_DIR)}) {
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      if (e.path().extension() != ".pte") continue;
      SCOPED_TRACE(e.path().string());
      const Blob file = testing::load_file(e.path());
      if (!inspect_pte(file).ok()) continue;  // the error vectors' outputs are not programs
      Result<ProgramGraph> whole = graph_of(FileSource::in_memory(file), {}, std::nullopt);
      ASSERT_TRUE(whole.ok()) << whole.error().message;
      EXPECT_FALSE(whole->streamed);
      std::string text;
      size_t pieces = 0;
      GraphOptions options;
      options.json_sink = [&](const char* p, size_t n) { text.append(p, n), ++pieces; };
      Result<ProgramGraph> made = graph_of(FileSource::in_memory(file), {}, std::nullopt, options);
      ASSERT_TRUE(made.ok()) << made.error().message;
      ASSERT_TRUE(made->streamed);
      EXPECT_TRUE(made->json.empty());
      EXPECT_EQ(text, whole->json);
      EXPECT_GE(pieces, 1u);
      EXPECT_EQ(made->methods.size(), whole->methods.size());
      ++streamed;
    }
  }
  EXPECT_GT(streamed, 10u);
}

TEST(GraphStream, UnknownMethodRefusedBeforeAnyByte) {
  const Blob file = testing::load_file(fs::path(ETPACK_ARTIFACTS_DIR) / "add.pte");
  size_t bytes = 0;
  GraphOptions options;
  options.json_sink = [&](const char*, size_t n) { bytes += n; };
  Result<ProgramGraph> graph = graph_of(FileSource::in_memory(file), {}, std::string("nope"), options);
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(bytes, 0u);
}

TEST(GraphStream, ExpandedDelegatesAreMadeWhole) {
  const Blob file = testing::load_file(fs::path(ETPACK_ARTIFACTS_DIR) / "add.pte");
  size_t bytes = 0;
  GraphOptions options;
  options.expand_delegates = true;
  options.json_sink = [&](const char*, size_t n) { bytes += n; };
  Result<ProgramGraph> graph = graph_of(FileSource::in_memory(file), {}, std::nullopt, options);
  ASSERT_TRUE(graph.ok()) << graph.error().message;
  EXPECT_FALSE(graph->streamed);
  EXPECT_EQ(bytes, 0u);
  EXPECT_EQ(graph->json.compare(0, 12, "{\"schema\": 1"), 0) << graph->json.substr(0, 40);
}

}  // namespace
}  // namespace etpack
