#include "model/named_data_store.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <tuple>
#include <vector>

namespace etpack {
namespace {

Blob bytes(const std::string& s) { return Blob::own(std::vector<uint8_t>(s.begin(), s.end())); }

std::string str(const Blob& b) {
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

TensorLayout layout(int8_t scalar_type, std::vector<int32_t> sizes, std::vector<uint8_t> dim_order) {
  TensorLayout l;
  l.scalar_type = scalar_type;
  l.sizes = std::move(sizes);
  l.dim_order = std::move(dim_order);
  return l;
}

const DataEntry* find(const EntryMap& map, const std::string& key) {
  for (const auto& [k, e] : map)
    if (k == key) return &e;
  return nullptr;
}

const EntryMap* find_tag(const NamedDataStoreOutput& out, const std::string& tag) {
  for (const auto& [t, entries] : out.external_data)
    if (t == tag) return &entries;
  return nullptr;
}

std::vector<std::string> keys(const EntryMap& map) {
  std::vector<std::string> out;
  for (const auto& kv : map) out.push_back(kv.first);
  return out;
}

std::vector<std::string> tags(const NamedDataStoreOutput& out) {
  std::vector<std::string> result;
  for (const auto& kv : out.external_data) result.push_back(kv.first);
  return result;
}

// --- adding -----------------------------------------------------------------

TEST(NamedDataStore, AddPteAndExternal) {
  NamedDataStore store;
  EXPECT_TRUE(store.empty());
  ASSERT_TRUE(store.add_named_data("key1", bytes("data1")).ok());
  ASSERT_TRUE(store.add_named_data("key2", bytes("data2"), 16, "file1").ok());
  ASSERT_TRUE(store.add_named_data("key3", bytes("data3"), 16, "file1").ok());
  EXPECT_FALSE(store.empty());
  EXPECT_TRUE(store.contains("key2"));
  EXPECT_FALSE(store.contains("key4"));

  NamedDataStoreOutput out = store.get_named_data_store_output();
  ASSERT_EQ(out.buffers.size(), 3u);
  EXPECT_EQ(str(out.buffers[0]), "data1");
  EXPECT_EQ(str(out.buffers[1]), "data2");
  EXPECT_EQ(str(out.buffers[2]), "data3");
  ASSERT_EQ(out.pte_data.size(), 1u);
  EXPECT_EQ(out.pte_data[0].first, "key1");
  EXPECT_EQ(out.pte_data[0].second, (DataEntry{0, 1, std::nullopt}));
  ASSERT_EQ(out.external_data.size(), 1u);
  EXPECT_EQ(out.external_data[0].first, "file1");
  EXPECT_EQ(keys(out.external_data[0].second), (std::vector<std::string>{"key2", "key3"}));
  EXPECT_EQ(out.external_data[0].second[0].second, (DataEntry{1, 16, std::nullopt}));
  EXPECT_EQ(out.external_data[0].second[1].second, (DataEntry{2, 16, std::nullopt}));
}

TEST(NamedDataStore, StoresReferencesNotCopies) {
  static const uint8_t weights[] = {1, 2, 3, 4, 5, 6, 7, 8};
  NamedDataStore store;
  ASSERT_TRUE(store.add_named_data("w", Blob::view(weights, sizeof(weights)), 8).ok());
  ASSERT_TRUE(store.add_named_data("w_alias", Blob::view(weights, sizeof(weights)), 8, "t").ok());
  NamedDataStoreOutput out = store.get_named_data_store_output();
  ASSERT_EQ(out.buffers.size(), 1u);
  EXPECT_EQ(out.buffers[0].data(), weights);
}

TEST(NamedDataStore, IdenticalBytesShareOneBufferEachKeyKeepsItsEntry) {
  NamedDataStore store;
  const TensorLayout l1 = layout(6, {1, 2}, {0, 1});
  const TensorLayout l2 = layout(6, {2, 1}, {0, 1});
  ASSERT_TRUE(store.add_named_data("key", bytes("data"), 3, std::nullopt, l1).ok());
  ASSERT_TRUE(store.add_named_data("key1", bytes("data"), 4, std::nullopt, l2).ok());
  ASSERT_TRUE(store.add_named_data("ext", bytes("data"), 16, "t").ok());

  NamedDataStoreOutput out = store.get_named_data_store_output();
  ASSERT_EQ(out.buffers.size(), 1u);
  // No lcm of alignments, despite upstream's class docstring.
  EXPECT_EQ(*find(out.pte_data, "key"), (DataEntry{0, 3, l1}));
  EXPECT_EQ(*find(out.pte_data, "key1"), (DataEntry{0, 4, l2}));
  EXPECT_EQ(*find(*find_tag(out, "t"), "ext"), (DataEntry{0, 16, std::nullopt}));
}

TEST(NamedDataStore, UndoAddsRestoresTheStoreAsItWas) {
  NamedDataStore store;
  ASSERT_TRUE(store.add_named_data("kept", bytes("aaaa")).ok());
  store.begin_adds();
  ASSERT_TRUE(store.add_named_data("same", bytes("aaaa")).ok());         // shares buffer 0
  ASSERT_TRUE(store.add_named_data("other", bytes("bbbb"), 1, "t").ok());  // new buffer, new tag
  ASSERT_TRUE(store.add_named_data("third", bytes("cccc")).ok());          // same fingerprint size
  store.undo_adds();
  store.end_adds();

  NamedDataStoreOutput out = store.get_named_data_store_output();
  ASSERT_EQ(out.buffers.size(), 1u);
  ASSERT_EQ(out.pte_data.size(), 1u);
  EXPECT_EQ(out.pte_data[0].first, "kept");
  EXPECT_TRUE(out.external_data.empty());  // the tag the undone add created is empty, so dropped
  EXPECT_FALSE(store.contains("other"));
  // The content index forgot the undone buffers: equal bytes get a new buffer again.
  ASSERT_TRUE(store.add_named_data("again", bytes("bbbb")).ok());
  ASSERT_TRUE(store.add_named_data("again2", bytes("aaaa")).ok());
  out = store.get_named_data_store_output();
  ASSERT_EQ(out.buffers.size(), 2u);
  EXPECT_EQ(str(out.buffers[1]), "bbbb");
  EXPECT_EQ(out.pte_data[2].second.buffer_index, 0u);
}

TEST(NamedDataStore, EmptyPayloadsDedup) {
  NamedDataStore store;
  ASSERT_TRUE(store.add_named_data("a", Blob()).ok());
  ASSERT_TRUE(store.add_named_data("b", bytes("")).ok());
  ASSERT_TRUE(store.add_named_data("a", Blob::view(nullptr, 0)).ok());
  NamedDataStoreOutput out = store.get_named_data_store_output();
  ASSERT_EQ(out.buffers.size(), 1u);
  EXPECT_EQ(out.pte_data.size(), 2u);
}

TEST(NamedDataStore, SameKeySameBytesIsNoOpFirstEntryWins) {
  NamedDataStore store;
  const TensorLayout l = layout(3, {3}, {0});
  ASSERT_TRUE(store.add_named_data("k", bytes("abc"), 4, std::nullopt, l).ok());
  ASSERT_TRUE(store.add_named_data("k", bytes("abc"), 64).ok());
  ASSERT_TRUE(store.add_named_data("k", bytes("abc"), 1, "t").ok());
  ASSERT_TRUE(store.add_named_data("j", bytes("xyz"), 1, "t2").ok());

  NamedDataStoreOutput out = store.get_named_data_store_output();
  ASSERT_EQ(out.buffers.size(), 2u);
  ASSERT_EQ(out.pte_data.size(), 1u);
  EXPECT_EQ(out.pte_data[0].second, (DataEntry{0, 4, l}));
  // "t" stayed empty and is dropped.
  EXPECT_EQ(tags(out), (std::vector<std::string>{"t2"}));
}

TEST(NamedDataStore, TagPositionIsFixedByFirstUseEvenWhenThatAddWasANoOp) {
  // Upstream's setdefault creates the tag before it looks at the key.
  NamedDataStore store;
  ASSERT_TRUE(store.add_named_data("k", bytes("abc")).ok());
  ASSERT_TRUE(store.add_named_data("k", bytes("abc"), 1, "first").ok());
  ASSERT_TRUE(store.add_named_data("j", bytes("j"), 1, "second").ok());
  ASSERT_TRUE(store.add_named_data("m", bytes("m"), 1, "first").ok());
  EXPECT_EQ(tags(store.get_named_data_store_output()),
            (std::vector<std::string>{"first", "second"}));
}

TEST(NamedDataStore, AlignmentZeroIsRejected) {
  NamedDataStore store;
  Status s = store.add_named_data("k", bytes("abc"), 0, "t");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kInvalidAlignment);
  EXPECT_EQ(s.error().message, "Alignment must be greater than 0, received 0.");
  EXPECT_TRUE(store.empty());
  EXPECT_TRUE(store.get_named_data_store_output().external_data.empty());
}

TEST(NamedDataStore, DuplicateKeyDifferentBytesSameLength) {
  NamedDataStore store;
  ASSERT_TRUE(store.add_named_data("k", bytes(std::string(16, 'a'))).ok());
  Status s = store.add_named_data("k", bytes(std::string(16, 'b')));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kDuplicateKey);
  EXPECT_EQ(s.error().message,
            "Duplicate key k with different data. Existing data size: 16 bytes. New data size: "
            "16 bytes.");
}

TEST(NamedDataStore, DuplicateKeyAcrossLocationsLeavesStoreUnchanged) {
  NamedDataStore store;
  ASSERT_TRUE(store.add_named_data("k", bytes(std::string(16, 'a'))).ok());
  Status s = store.add_named_data("k", bytes(std::string(17, 'a')), 16, "t");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kDuplicateKey);
  EXPECT_EQ(s.error().message,
            "Duplicate key k with different data. Existing data size: 16 bytes. New data size: "
            "17 bytes.");
  NamedDataStoreOutput out = store.get_named_data_store_output();
  EXPECT_EQ(out.buffers.size(), 1u);
  EXPECT_EQ(out.pte_data.size(), 1u);
  EXPECT_EQ(out.pte_data[0].second, (DataEntry{0, 1, std::nullopt}));
  EXPECT_TRUE(out.external_data.empty());
}

// Same size, same first and last 32 bytes: the fingerprint matches, only the
// bytes tell the buffers apart.
TEST(NamedDataStore, FingerprintCollisionsAreResolvedByBytes) {
  const std::string edge(32, 'A');
  const std::string d1 = edge + std::string(100, 'X') + edge;
  const std::string d2 = edge + std::string(100, 'Y') + edge;
  const std::string d3 = edge + std::string(99, 'X') + "Z" + edge;
  NamedDataStore store;
  ASSERT_TRUE(store.add_named_data("k1", bytes(d1)).ok());
  ASSERT_TRUE(store.add_named_data("k2", bytes(d2)).ok());
  ASSERT_TRUE(store.add_named_data("k3", bytes(d1)).ok());  // duplicate of k1
  ASSERT_TRUE(store.add_named_data("k4", bytes(d3)).ok());
  ASSERT_TRUE(store.add_named_data("k5", bytes(d3)).ok());  // duplicate of k4
  ASSERT_TRUE(store.add_named_data("k6", bytes(d2)).ok());  // duplicate of k2

  NamedDataStoreOutput out = store.get_named_data_store_output();
  ASSERT_EQ(out.buffers.size(), 3u);
  EXPECT_EQ(str(out.buffers[0]), d1);
  EXPECT_EQ(str(out.buffers[1]), d2);
  EXPECT_EQ(str(out.buffers[2]), d3);
  const uint32_t expected[] = {0, 1, 0, 2, 2, 1};
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(out.pte_data[i].second.buffer_index, expected[i]) << i;
}

// --- merging ----------------------------------------------------------------

TEST(NamedDataStore, Merge) {
  const TensorLayout l1 = layout(6, {1, 2}, {0, 1});
  NamedDataStore store1;
  ASSERT_TRUE(store1.add_named_data("key1", bytes("data1"), 1, std::nullopt, l1).ok());
  ASSERT_TRUE(store1.add_named_data("key2", bytes("data2"), 16, "file1").ok());

  NamedDataStore store2;
  ASSERT_TRUE(store2.add_named_data("key1", bytes("data1"), 1, std::nullopt, l1).ok());
  ASSERT_TRUE(store2.add_named_data("key3", bytes("data3")).ok());
  ASSERT_TRUE(store2.add_named_data("key4", bytes("data4"), 16, "file1").ok());
  ASSERT_TRUE(store2.add_named_data("key5", bytes("data5"), 16, "file2").ok());

  ASSERT_TRUE(store1.merge_named_data_store(store2.get_named_data_store_output()).ok());
  NamedDataStoreOutput out = store1.get_named_data_store_output();
  EXPECT_EQ(out.buffers.size(), 5u);
  EXPECT_EQ(keys(out.pte_data), (std::vector<std::string>{"key1", "key3"}));
  EXPECT_EQ(*find(out.pte_data, "key1"), (DataEntry{0, 1, l1}));
  EXPECT_EQ(tags(out), (std::vector<std::string>{"file1", "file2"}));
  EXPECT_EQ(keys(*find_tag(out, "file1")), (std::vector<std::string>{"key2", "key4"}));
  EXPECT_EQ(keys(*find_tag(out, "file2")), (std::vector<std::string>{"key5"}));
}

TEST(NamedDataStore, MergeIntoItselfChangesNothing) {
  NamedDataStore store;
  ASSERT_TRUE(store.add_named_data("a", bytes("x"), 8).ok());
  ASSERT_TRUE(store.add_named_data("b", bytes("y"), 1, "t").ok());
  NamedDataStoreOutput before = store.get_named_data_store_output();
  ASSERT_TRUE(store.merge_named_data_store(before).ok());
  NamedDataStoreOutput after = store.get_named_data_store_output();
  EXPECT_EQ(after.buffers.size(), before.buffers.size());
  EXPECT_EQ(after.pte_data, before.pte_data);
  EXPECT_EQ(after.external_data, before.external_data);
}

TEST(NamedDataStore, MergeConflictIsDuplicateKey) {
  NamedDataStore store1;
  ASSERT_TRUE(store1.add_named_data("key1", bytes("data1")).ok());
  NamedDataStore store2;
  ASSERT_TRUE(store2.add_named_data("key1", bytes("data2")).ok());
  Status s = store1.merge_named_data_store(store2.get_named_data_store_output());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kDuplicateKey);
  EXPECT_EQ(s.error().message,
            "Duplicate key key1 with different data. Existing data size: 5 bytes. New data size: "
            "5 bytes.");
}

TEST(NamedDataStore, MergeRejectsBufferIndexOutOfRangeBeforeAddingAnything) {
  NamedDataStoreOutput other;
  other.buffers.push_back(bytes("x"));
  other.pte_data.push_back({"ok", DataEntry{0, 1, std::nullopt}});
  other.external_data.push_back({"t", EntryMap{{"bad", DataEntry{1, 1, std::nullopt}}}});
  NamedDataStore store;
  Status s = store.merge_named_data_store(other);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(s.error().message.find("bad"), std::string::npos);
  EXPECT_TRUE(store.empty());
}

// --- externalizing ------------------------------------------------------------

TEST(NamedDataStore, ExternalizeCountsAliasedBufferOnce) {
  NamedDataStore store;
  const TensorLayout l = layout(6, {1}, {0});
  ASSERT_TRUE(store.add_named_data("key_a", bytes("aaaaaa"), 16, std::nullopt, l).ok());
  ASSERT_TRUE(store.add_named_data("key_a_alias", bytes("aaaaaa"), 32, std::nullopt, l).ok());
  ASSERT_TRUE(store.add_named_data("key_b", bytes("bbbb"), 16, std::nullopt, l).ok());
  NamedDataStoreOutput before = store.get_named_data_store_output();

  ASSERT_TRUE(store.externalize_pte_data(10, "test_constants").ok());
  NamedDataStoreOutput out = store.get_named_data_store_output();
  ASSERT_EQ(out.buffers.size(), before.buffers.size());
  for (size_t i = 0; i < out.buffers.size(); ++i)
    EXPECT_EQ(out.buffers[i].data(), before.buffers[i].data());
  EXPECT_TRUE(out.pte_data.empty());
  ASSERT_EQ(out.external_data.size(), 1u);
  EXPECT_EQ(out.external_data[0].first,
            "test_constants_bea257c73e2355ccd1320eab3847654bd43dce0089baea8c9df60fd49cdc8d71");
  EXPECT_EQ(out.external_data[0].second, before.pte_data);
}

TEST(NamedDataStore, ExternalizeIsIndependentOfInsertionOrder) {
  struct Item {
    const char* key;
    const char* data;
    uint64_t alignment;
  };
  const Item items[] = {
      {"key_a", "aaaaaa", 16}, {"key_a_alias", "aaaaaa", 32}, {"key_b", "bbbb", 32},
      {"key_c", "ccccc", 64}};
  auto run = [&](const std::vector<size_t>& order) {
    NamedDataStore store;
    for (size_t i : order)
      EXPECT_TRUE(store.add_named_data(items[i].key, bytes(items[i].data), items[i].alignment).ok());
    EXPECT_TRUE(store.externalize_pte_data(10, "test_constants").ok());
    NamedDataStoreOutput out = store.get_named_data_store_output();
    // tag -> [(key, bytes, alignment)]
    std::vector<std::pair<std::string, std::vector<std::tuple<std::string, std::string, uint64_t>>>>
        flat;
    for (const auto& [tag, entries] : out.external_data) {
      flat.emplace_back(tag, std::vector<std::tuple<std::string, std::string, uint64_t>>{});
      for (const auto& [key, e] : entries)
        flat.back().second.emplace_back(key, str(out.buffers[e.buffer_index]), e.alignment);
    }
    return flat;
  };
  auto forward = run({0, 1, 2, 3});
  auto reverse = run({3, 2, 1, 0});
  ASSERT_EQ(forward.size(), 2u);
  EXPECT_EQ(forward, reverse);
  EXPECT_EQ(forward[0].first,
            "test_constants_bea257c73e2355ccd1320eab3847654bd43dce0089baea8c9df60fd49cdc8d71");
  EXPECT_EQ(forward[1].first,
            "test_constants_c5dcc2e8971b14c32e59ed4278e545e76d79acb12b2eb6513e087e1f415c18b7");
}

TEST(NamedDataStore, ExternalizeSortsKeysWithinAShard) {
  // The group {a, z} (one buffer) comes before {b}; the shard lists a, b, z.
  NamedDataStore store;
  ASSERT_TRUE(store.add_named_data("z", bytes("11")).ok());
  ASSERT_TRUE(store.add_named_data("b", bytes("22")).ok());
  ASSERT_TRUE(store.add_named_data("a", bytes("11")).ok());
  ASSERT_TRUE(store.externalize_pte_data(100, "p").ok());
  NamedDataStoreOutput out = store.get_named_data_store_output();
  ASSERT_EQ(out.external_data.size(), 1u);
  EXPECT_EQ(keys(out.external_data[0].second), (std::vector<std::string>{"a", "b", "z"}));
  const std::string joined = std::string("a") + '\0' + "b" + '\0' + "z";
  EXPECT_EQ(out.external_data[0].first,
            "p_" + sha256_hex(reinterpret_cast<const uint8_t*>(joined.data()), joined.size()));
}

TEST(NamedDataStore, ExternalizeFillsAShardExactlyToTheCap) {
  NamedDataStore store;
  ASSERT_TRUE(store.add_named_data("a", bytes(std::string(6, 'a'))).ok());
  ASSERT_TRUE(store.add_named_data("b", bytes(std::string(4, 'b'))).ok());
  ASSERT_TRUE(store.add_named_data("c", bytes(std::string(10, 'c'))).ok());
  ASSERT_TRUE(store.add_named_data("d", bytes(std::string(1, 'd'))).ok());
  ASSERT_TRUE(store.externalize_pte_data(10, "p").ok());
  NamedDataStoreOutput out = store.get_named_data_store_output();
  ASSERT_EQ(out.external_data.size(), 3u);
  EXPECT_EQ(keys(out.external_data[0].second), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(keys(out.external_data[1].second), (std::vector<std::string>{"c"}));
  EXPECT_EQ(keys(out.external_data[2].second), (std::vector<std::string>{"d"}));
}

TEST(NamedDataStore, ExternalizeWithHugeCapDoesNotOverflow) {
  NamedDataStore store;
  ASSERT_TRUE(store.add_named_data("a", bytes("aaaa")).ok());
  ASSERT_TRUE(store.add_named_data("b", bytes("bbbb")).ok());
  ASSERT_TRUE(store.externalize_pte_data(std::numeric_limits<uint64_t>::max(), "p").ok());
  NamedDataStoreOutput out = store.get_named_data_store_output();
  ASSERT_EQ(out.external_data.size(), 1u);
  EXPECT_EQ(out.external_data[0].second.size(), 2u);
}

TEST(NamedDataStore, ExternalizeRejectsOversizedBufferAtomically) {
  NamedDataStore store;
  ASSERT_TRUE(store.add_named_data("external", bytes("ext"), 8, "existing").ok());
  ASSERT_TRUE(store.add_named_data("key_a", bytes("aaaa"), 16).ok());
  ASSERT_TRUE(store.add_named_data("key_z", bytes(std::string(11, 'z')), 32).ok());
  NamedDataStoreOutput before = store.get_named_data_store_output();

  Status s = store.externalize_pte_data(10, "test_constants");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kShardCapExceeded);
  EXPECT_NE(s.error().message.find("buffer 2 has 11 bytes and exceeds external data shard cap 10"),
            std::string::npos)
      << s.error().message;
  EXPECT_NE(s.error().message.find("key_z"), std::string::npos);

  NamedDataStoreOutput after = store.get_named_data_store_output();
  EXPECT_EQ(after.buffers.size(), before.buffers.size());
  EXPECT_EQ(after.pte_data, before.pte_data);
  EXPECT_EQ(after.external_data, before.external_data);
}

TEST(NamedDataStore, ExternalizeRejectsInvalidArguments) {
  NamedDataStore store;  // checked even with nothing to move
  Status s = store.externalize_pte_data(0, "test_constants");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(s.error().message.find("external data shard cap must be a positive integer"),
            std::string::npos);

  s = store.externalize_pte_data(10, "");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(s.error().message, "external data tag prefix must be nonempty");
}

TEST(NamedDataStore, ExternalizeRejectsTagCollisionAtomically) {
  NamedDataStore store;
  const std::string tag =
      "test_constants_995cf20a9c45daaf0a2cc31e85c290032ced97aadbac6c9d625595f5ce0ed427";  // "inline"
  ASSERT_TRUE(store.add_named_data("external", bytes("ext"), 8, tag).ok());
  ASSERT_TRUE(store.add_named_data("inline", bytes("inline"), 16).ok());
  NamedDataStoreOutput before = store.get_named_data_store_output();

  Status s = store.externalize_pte_data(10, "test_constants");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(s.error().message.find("external data tag collision"), std::string::npos);
  NamedDataStoreOutput after = store.get_named_data_store_output();
  EXPECT_EQ(after.pte_data, before.pte_data);
  EXPECT_EQ(after.external_data, before.external_data);
}

TEST(NamedDataStore, ExternalizeKeepsExistingTagsFirstAndIsIdempotent) {
  NamedDataStore store;
  ASSERT_TRUE(store.add_named_data("external", bytes("ext"), 8, "existing").ok());
  ASSERT_TRUE(store.add_named_data("inline", bytes("inline"), 16).ok());

  ASSERT_TRUE(store.externalize_pte_data(10, "test_constants").ok());
  NamedDataStoreOutput first = store.get_named_data_store_output();
  ASSERT_TRUE(store.externalize_pte_data(10, "test_constants").ok());
  NamedDataStoreOutput second = store.get_named_data_store_output();

  EXPECT_EQ(first.pte_data, second.pte_data);
  EXPECT_EQ(first.external_data, second.external_data);
  EXPECT_EQ(tags(second),
            (std::vector<std::string>{
                "existing",
                "test_constants_995cf20a9c45daaf0a2cc31e85c290032ced97aadbac6c9d625595f5ce0ed427"}));
  EXPECT_EQ(keys(*find_tag(second, "existing")), (std::vector<std::string>{"external"}));
}

TEST(NamedDataStore, KeysStayUniqueAfterExternalizing) {
  NamedDataStore store;
  ASSERT_TRUE(store.add_named_data("k", bytes("abc")).ok());
  ASSERT_TRUE(store.externalize_pte_data(10, "p").ok());
  Status s = store.add_named_data("k", bytes("abd"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kDuplicateKey);
  EXPECT_TRUE(store.add_named_data("k", bytes("abc")).ok());  // no-op
  EXPECT_TRUE(store.get_named_data_store_output().pte_data.empty());
}

}  // namespace
}  // namespace etpack
