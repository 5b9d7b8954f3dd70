// graph with delegates expanded (GraphOptions::expand_delegates): every
// wrapped payload of ../shared/delegates (or $ETPACK_DELEGATES_DIR) drawn
// as its own nodes, joined to the program's inputs and outputs; x08's
// edges exactly; an opaque delegate stays one box saying why; the default
// stays collapsed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "core/json.h"
#include "ops/graph.h"
#include "test_files.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;

fs::path delegates_root() {
  if (const char* env = std::getenv("ETPACK_DELEGATES_DIR"); env != nullptr && *env != '\0') return env;
  return fs::path(ETPACK_SOURCE_DIR) / ".." / "shared" / "delegates";
}

struct Drawn {
  Json json;
  ProgramGraph graph;
};

Drawn draw(const fs::path& pte, bool expand, std::vector<Blob>& keep) {
  keep.push_back(testing::load_file(pte));
  const FileSource file = FileSource::in_memory(keep.back());
  std::vector<std::pair<std::string, FileSource>> ptds;
  for (const auto& e : fs::directory_iterator(pte.parent_path())) {
    if (e.path().extension() != ".ptd") continue;
    keep.push_back(testing::load_file(e.path()));
    ptds.emplace_back(e.path().filename().string(), FileSource::in_memory(keep.back()));
  }
  GraphOptions options;
  options.expand_delegates = expand;
  Result<ProgramGraph> made = graph_of(file, ptds, std::nullopt, options);
  EXPECT_TRUE(made.ok()) << made.error().message;
  if (!made.ok()) return {};
  Result<Json> json = parse_json(made->json);
  EXPECT_TRUE(json.ok()) << json.error().message;
  return {json.ok() ? *json : Json::null(), std::move(*made)};
}

size_t count_kind(const Json& method, const std::string& kind) {
  size_t n = 0;
  for (const Json& node : method.find("nodes")->items()) n += node.find("kind")->text() == kind;
  return n;
}

TEST(GraphDelegates, WrappedPayloadsExpandIntoTheirNodes) {
  size_t files = 0;
  for (const char* kind : {"xnnpack", "vulkan"}) {
    std::error_code ec;
    for (const auto& v : fs::directory_iterator(delegates_root() / kind, ec)) {
      for (const char* wrap : {"pte_inline", "pte_segment"}) {
        const fs::path pte = v.path() / wrap / "out.pte";
        if (!fs::exists(pte)) continue;
        SCOPED_TRACE(pte.string());
        ++files;
        std::vector<Blob> keep;
        const Drawn collapsed = draw(pte, false, keep), expanded = draw(pte, true, keep);
        const Json& before = collapsed.json.find("methods")->items().at(0);
        const Json& after = expanded.json.find("methods")->items().at(0);
        EXPECT_EQ(count_kind(before, "delegateNode"), 0u);
        EXPECT_EQ(collapsed.graph.json.find("expandNote"), std::string::npos);
        EXPECT_EQ(count_kind(after, "delegate"), 0u);
        // One node per node of the payload (graph.json: the flatbuffer as flatc prints it).
        const std::vector<uint8_t> text = testing::read_bytes(v.path() / "graph.json");
        Result<Json> payload = parse_json(std::string(text.begin(), text.end()));
        ASSERT_TRUE(payload.ok());
        const Json* list = payload->find(std::string(kind) == "xnnpack" ? "xnodes" : "chain");
        EXPECT_EQ(count_kind(after, "delegateNode"), list->items().size());
        std::set<std::string> ids;
        for (const Json& n : after.find("nodes")->items()) ids.insert(n.find("id")->text());
        bool from_input = false, to_output = false;
        for (const Json& e : after.find("edges")->items()) {
          const std::string from = e.find("from")->text(), to = e.find("to")->text();
          EXPECT_TRUE(ids.count(from) && ids.count(to)) << write_json(e);
          from_input |= from.rfind("in", 0) == 0 && to.find(".n") != std::string::npos;
          to_output |= from.find(".n") != std::string::npos && to.rfind("out", 0) == 0;
        }
        EXPECT_TRUE(from_input && to_output) << "the payload is joined to the program's inputs and outputs";
        // DOT and Mermaid draw the same nodes and edges.
        const std::string dot = graph_dot(expanded.graph);
        EXPECT_NE(dot.find("\"m0.c0.i0.n0\""), std::string::npos);
        EXPECT_EQ(expanded.graph.methods[0].edges.size(), after.find("edges")->items().size());
        EXPECT_NE(graph_mermaid(expanded.graph).find("m0_c0_i0_n0"), std::string::npos);
      }
    }
  }
  EXPECT_GE(files, 12u);
}

TEST(GraphDelegates, X08EdgesJoinArgsToPayloadIds) {
  // args [0, 1]; input_ids [0], output_ids [4]: XNNConvert 0 -> 1, XNNFullyConnected (1, 2, 3) -> 4.
  std::vector<Blob> keep;
  const Drawn d = draw(delegates_root() / "xnnpack" / "x08_dynamic_qdint8_linear" / "pte_segment" / "out.pte", true, keep);
  const Json& m = d.json.find("methods")->items().at(0);
  std::set<std::string> edges;
  for (const Json& e : m.find("edges")->items()) {
    const Json* key = e.find("payloadValue");
    edges.insert(e.find("from")->text() + ">" + e.find("to")->text() + ":" +
                 (key ? "p" + key->text() : e.find("value")->is_null() ? "-" : write_json(*e.find("value"))));
  }
  EXPECT_EQ(edges, (std::set<std::string>{"in0>c0.i0.n0:0", "c0.i0.n0>c0.i0.n1:p1", "c0.i0.n1>out0:1"}));
  const Json& fc = m.find("nodes")->items().at(2);
  EXPECT_EQ(fc.find("id")->text(), "c0.i0.n1");
  EXPECT_EQ(fc.find("operator")->text(), "XNNFullyConnected");
  EXPECT_EQ(fc.find("payloadKind")->text(), "xnnpack");
  EXPECT_EQ(fc.find("order")->text(), "0");
  EXPECT_EQ(write_json(*m.find("values")->items().at(1).find("live")), "{\"first\": 0, \"last\": 0}");
}

TEST(GraphDelegates, OpaqueDelegateStaysOneBoxWithANote) {
  std::vector<Blob> keep;
  const Drawn d = draw(fs::path(ETPACK_CONFORMANCE_DIR) / "13_everything" / "out.pte", true, keep);
  size_t notes = 0;
  for (const Json& m : d.json.find("methods")->items())
    for (const Json& n : m.find("nodes")->items())
      if (n.find("kind")->text() == "delegate") {
        ASSERT_NE(n.find("expandNote"), nullptr);
        EXPECT_NE(n.find("expandNote")->text(), "");
        ++notes;
      }
  EXPECT_GT(notes, 0u);
}

}  // namespace
}  // namespace etpack
