// profile joins a delegate's internal events to its graph's nodes by debug
// handle (ops/profile_delegates.h): x02 (XNNPACK, one XNNFullyConnected
// with debug_handle 1) under a hand-made ETDump block whose DELEGATE_CALL
// holds two internal events, one naming handle 1 and one naming none.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "core/json.h"
#include "ops/profile_delegates.h"
#include "read/pte_reader.h"
#include "schema/schema.h"
#include "unit/test_files.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;

EtdumpProfileEvent event(const char* name, int32_t debug_id, uint64_t start, uint64_t end) {
  EtdumpProfileEvent e;
  e.name = name;
  e.chain_index = 0;
  e.instruction_id = 0;
  e.delegate_debug_id_int = debug_id;
  e.start_time = start;
  e.end_time = end;
  return e;
}

TEST(ProfileDelegates, InternalEventsJoinTheirNodes) {
  fs::path root = fs::path(ETPACK_SOURCE_DIR) / ".." / "shared" / "delegates";
  if (const char* env = std::getenv("ETPACK_DELEGATES_DIR"); env != nullptr && *env != '\0') root = env;
  const fs::path path = root / "xnnpack" / "x02_linear_fp32_named" / "pte_segment" / "out.pte";
  if (!fs::exists(path)) GTEST_SKIP() << "no delegate vectors";
  const FileSource pte = FileSource::in_memory(testing::load_file(path));
  auto file = read_pte_program(pte.head, pte.size());
  ASSERT_TRUE(file.ok()) << file.error().message;

  EtdumpFile dump{TableValue(etdump_schema().root), {}, {}};
  EtdumpBlock block;
  block.name = "Execute";
  block.profile = {event("linear", 1, 10, 20), event("other", 7, 20, 25), event("DELEGATE_CALL", -1, 5, 30)};
  for (size_t i = 0; i < block.profile.size(); ++i) block.profile[i].event_index = i;
  block.event_count = block.profile.size();
  dump.blocks.push_back(block);
  ProfileOptions options;
  options.all_blocks = "forward";
  options.delegate_nodes = delegate_node_lookup(pte, *file);
  auto json = profile_json(dump, file->program, options);
  ASSERT_TRUE(json.ok()) << json.error().message;
  auto parsed = parse_json(*json);
  ASSERT_TRUE(parsed.ok());
  const Json& events = *parsed->find("blocks")->items().at(0).find("events");
  const Json* nodes = events.items().at(0).find("delegateNodes");
  ASSERT_NE(nodes, nullptr) << *json;
  ASSERT_EQ(nodes->items().size(), 1u);
  EXPECT_EQ(nodes->items()[0].find("index")->as_uint64(), 0u);
  EXPECT_EQ(nodes->items()[0].find("operator")->text(), "XNNFullyConnected");
  // A handle no node has: joined to none (an empty list); the call itself: no key.
  ASSERT_NE(events.items().at(1).find("delegateNodes"), nullptr);
  EXPECT_TRUE(events.items().at(1).find("delegateNodes")->items().empty());
  EXPECT_EQ(events.items().at(2).find("delegateNodes"), nullptr);
  EXPECT_EQ(events.items().at(2).find("delegate")->text(), "XnnpackBackend");
}

}  // namespace
}  // namespace etpack
