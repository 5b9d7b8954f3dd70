// graph: one node per instruction inspect counts, every edge between
// existing nodes, external tensors named with their .ptd, and labels that
// stay inside their syntax whatever the names hold.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/json.h"
#include "ops/graph.h"
#include "inspect/inspect.h"
#include "test_files.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> pte_files() {
  std::vector<fs::path> out;
  for (const fs::path& root : {fs::path(ETPACK_CONFORMANCE_DIR), fs::path(ETPACK_ARTIFACTS_DIR)})
    for (const auto& e : fs::recursive_directory_iterator(root))
      if (e.path().extension() == ".pte") out.push_back(e.path());
  return out;
}

// The .ptd files beside a .pte (a conformance vector's data files).
std::vector<std::pair<std::string, FileSource>> ptds_beside(const fs::path& pte, std::vector<Blob>& keep) {
  std::vector<std::pair<std::string, FileSource>> out;
  for (const auto& e : fs::directory_iterator(pte.parent_path())) {
    if (e.path().extension() != ".ptd") continue;
    keep.push_back(testing::load_file(e.path()));
    out.emplace_back(e.path().filename().string(), FileSource::in_memory(keep.back()));
  }
  return out;
}

TEST(Graph, OneNodePerInstructionAndEdgesJoinNodes) {
  size_t programs = 0, delegates = 0, externals_resolved = 0, edges = 0;
  for (const fs::path& path : pte_files()) {
    SCOPED_TRACE(path.string());
    const Blob file = testing::load_file(path);
    Result<Json> summary = inspect_pte(file);
    if (!summary.ok()) continue;  // the error vectors' outputs are not programs
    std::vector<Blob> keep;
    Result<ProgramGraph> made = graph_of(FileSource::in_memory(file), ptds_beside(path, keep), std::nullopt);
    ASSERT_TRUE(made.ok()) << made.error().message;
    Result<Json> graph = parse_json(made->json);
    ASSERT_TRUE(graph.ok()) << graph.error().message;
    ++programs;
    EXPECT_EQ(graph->find("schema")->text(), "1");
    const auto& methods = graph->find("methods")->items();
    const auto& inspected = summary->find("methods")->items();
    ASSERT_EQ(methods.size(), inspected.size());
    for (size_t m = 0; m < methods.size(); ++m) {
      std::set<std::string> ids;
      uint64_t instructions = 0;
      for (const Json& n : methods[m].find("nodes")->items()) {
        EXPECT_TRUE(ids.insert(n.find("id")->text()).second) << "duplicate id " << n.find("id")->text();
        if (!n.find("instruction")->is_null()) ++instructions;
        if (n.find("kind")->text() == "delegate") ++delegates;
        if (n.find("kind")->text() == "external" && n.find("file")->is_string()) ++externals_resolved;
      }
      EXPECT_EQ(instructions, *inspected[m].find("instructionCount")->as_uint64());
      EXPECT_EQ(*methods[m].find("instructionCount")->as_uint64(), instructions);
      for (const Json& e : methods[m].find("edges")->items()) {
        ++edges;
        EXPECT_TRUE(ids.count(e.find("from")->text())) << write_json(e);
        EXPECT_TRUE(ids.count(e.find("to")->text())) << write_json(e);
      }
    }
    // Both texts are made for every file (their syntax is checked by Graphviz in tests/js/graph.test.mjs).
    EXPECT_NE(graph_dot(*made).find("digraph program {"), std::string::npos);
    EXPECT_EQ(graph_mermaid(*made).rfind("flowchart TB\n", 0), 0u);
    ASSERT_EQ(made->methods.size(), methods.size());
    for (size_t m = 0; m < methods.size(); ++m) {
      EXPECT_EQ(made->methods[m].nodes.size(), methods[m].find("nodes")->items().size());
      EXPECT_EQ(made->methods[m].edges.size(), methods[m].find("edges")->items().size());
    }
  }
  EXPECT_GT(programs, 20u);
  EXPECT_GT(delegates, 0u);
  EXPECT_GT(externals_resolved, 0u);
  EXPECT_GT(edges, 0u);
}

TEST(Graph, EverythingVectorShowsDataLocations) {
  const fs::path dir = fs::path(ETPACK_CONFORMANCE_DIR) / "13_everything";
  const Blob file = testing::load_file(dir / "out.pte");
  std::vector<Blob> keep;
  Result<ProgramGraph> made = graph_of(FileSource::in_memory(file), ptds_beside(dir / "out.pte", keep), std::nullopt);
  ASSERT_TRUE(made.ok()) << made.error().message;
  Result<Json> graph = parse_json(made->json);
  ASSERT_TRUE(graph.ok()) << graph.error().message;
  std::map<std::string, size_t> kinds;
  for (const Json& m : graph->find("methods")->items()) {
    for (const Json& v : m.find("values")->items()) {
      const Json* data = v.find("data");
      if (data->is_null()) continue;
      const std::string kind = data->find("kind")->text();
      ++kinds[kind];
      if (kind == "constant" || kind == "mutable") {
        // Where the bytes are: an absolute offset inside the file.
        const auto offset = data->find("offset")->as_uint64();
        ASSERT_TRUE(offset) << write_json(v);
        EXPECT_LE(*offset + data->find("size")->as_uint64().value_or(0), file.size());
      }
      if (kind == "external") {
        EXPECT_TRUE(data->find("file")->is_string()) << write_json(v);
      }
    }
  }
  EXPECT_GT(kinds["constant"], 0u);
  EXPECT_GT(kinds["mutable"], 0u);
  EXPECT_GT(kinds["external"], 0u);
}

TEST(Graph, UnknownMethodIsRefused) {
  const Blob file = testing::load_file(fs::path(ETPACK_ARTIFACTS_DIR) / "add.pte");
  Result<ProgramGraph> graph = graph_of(FileSource::in_memory(file), {}, std::string("nope"));
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(graph.error().message.find("forward"), std::string::npos) << graph.error().message;
  Result<ProgramGraph> forward = graph_of(FileSource::in_memory(file), {}, std::string("forward"));
  ASSERT_TRUE(forward.ok());
  EXPECT_EQ(forward->methods.size(), 1u);
}

TEST(Graph, LabelsAreEscapedForDotAndMermaid) {
  // A quote, a backslash, a newline, a control character, a lone
  // surrogate (its 3-byte encoding), a stray byte, and valid UTF-8.
  const std::string name = std::string("a\"b\\c\nd\x01") + "\xed\xa0\x80" + "\xff" + "\xc3\xa9";
  EXPECT_EQ(dot_label(name), "\"a\\\"b\\\\c\\nd\\\\x01\\\\ud800\\\\xff\xc3\xa9\"");
  EXPECT_EQ(mermaid_label(name), "\"a#34;b#92;c#10;d#1;#92;ud800#92;xff#233;\"");
  EXPECT_EQ(mermaid_label("aten::add.out"), "\"aten::add.out\"");
  // Cut at kMaxLabelChars code points, never inside one.
  std::string long_name;
  for (size_t i = 0; i < kMaxLabelChars + 5; ++i) long_name += "\xc3\xa9";
  const std::string cut = dot_label(long_name);
  EXPECT_EQ(cut.size(), 2 + 2 * kMaxLabelChars + 3);
}

}  // namespace
}  // namespace etpack
