// The delegate-keys guard (ops/delegate_keys_guard.h) on x08 (XNNPACK whose
// named constants live in xnnpack_weights.ptd): repack without the .ptd is
// refused before writing, naming the key, delegate and method; with the
// .ptd as data or merged it passes; allow_missing_data lets the keys go
// missing, listed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "ops/delegate_keys_guard.h"
#include "ops/repack.h"
#include "unit/test_files.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;

fs::path x08(const char* wrap) {
  fs::path root = fs::path(ETPACK_SOURCE_DIR) / ".." / "shared" / "delegates";
  if (const char* env = std::getenv("ETPACK_DELEGATES_DIR"); env != nullptr && *env != '\0') root = env;
  return root / "xnnpack" / "x08_dynamic_qdint8_linear" / wrap;
}

const char* kWeight = "5c5a46cf16d038d8a9334fbcf5fd4d4a78af2282b775a85fd73d61c27069eaca";

TEST(DelegateKeysGuard, NeedsListEveryKeyWithItsDelegate) {
  for (const char* wrap : {"pte_inline", "pte_segment"}) {
    SCOPED_TRACE(wrap);
    if (!fs::exists(x08(wrap) / "out.pte")) GTEST_SKIP() << "no delegate vectors";
    auto found = delegate_key_needs(FileSource::in_memory(testing::load_file(x08(wrap) / "out.pte")));
    ASSERT_TRUE(found.ok()) << found.error().message;
    ASSERT_EQ(found->needs.size(), 3u);
    EXPECT_TRUE(found->pte_named_keys.empty());
    for (const DelegateKeyNeed& n : found->needs) {
      EXPECT_EQ(n.method, "forward");
      EXPECT_EQ(n.backend, "XnnpackBackend");
      EXPECT_EQ(delegate_path(n), "execution_plan[0].delegates[0]");
    }
    std::vector<std::string> missing;
    Status refused = guard_delegate_keys(found->needs, [](const std::string& k) { return k != kWeight; }, "the outputs", &missing);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::kMissingDelegateData);
    EXPECT_EQ(missing, std::vector<std::string>{kWeight});
    const std::string& m = refused.error().message;
    EXPECT_NE(m.find(std::string("'") + kWeight + "'"), std::string::npos) << m;
    EXPECT_NE(m.find("delegate 0 (XnnpackBackend) of method 'forward'"), std::string::npos) << m;
    EXPECT_TRUE(guard_delegate_keys(found->needs, [](const std::string&) { return true; }, "the outputs").ok());
  }
}

TEST(DelegateKeysGuard, RepackRefusesBeforeWritingWithoutTheData) {
  if (!fs::exists(x08("pte_segment") / "out.pte")) GTEST_SKIP() << "no delegate vectors";
  const FileSource pte = FileSource::in_memory(testing::load_file(x08("pte_segment") / "out.pte"));
  const FileSource ptd = FileSource::in_memory(testing::load_file(x08("pte_segment") / "xnnpack_weights.ptd"));
  RepackRefusal why;
  auto alone = repack(pte, RepackOptions{}, &why);
  ASSERT_FALSE(alone.ok());
  EXPECT_EQ(alone.error().code, ErrorCode::kMissingDelegateData) << alone.error().message;
  EXPECT_EQ(why.missing_keys.size(), 3u);
  EXPECT_TRUE(why.findings.empty());

  RepackOptions with_data;
  with_data.data.emplace_back("xnnpack_weights.ptd", ptd);
  auto carried = repack(pte, with_data);
  ASSERT_TRUE(carried.ok()) << carried.error().message;
  ASSERT_EQ(carried->artifacts.ptd.size(), 1u);
  EXPECT_EQ(carried->artifacts.ptd[0].first, "xnnpack_weights");

  RepackOptions merged;
  merged.merge.push_back(ptd);
  auto merged_out = repack(pte, merged);
  ASSERT_TRUE(merged_out.ok()) << merged_out.error().message;
  EXPECT_EQ(merged_out->merged_entries, 3u);

  RepackOptions externalized = with_data;
  externalized.externalize.emplace();
  auto moved = repack(pte, externalized);
  ASSERT_TRUE(moved.ok()) << moved.error().message;

  RepackOptions allowed;
  allowed.allow_missing_data = true;
  auto kept = repack(pte, allowed);
  ASSERT_TRUE(kept.ok()) << kept.error().message;
  EXPECT_EQ(kept->missing_keys.size(), 3u);
}

}  // namespace
}  // namespace etpack
