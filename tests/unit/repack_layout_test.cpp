// Issue 37: repack changes nothing unasked (delegates stay where they are,
// shared segments stay shared, the segment alignment is the input's), and a
// program deserialized from an upstream file serializes again with any
// option.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "ops/repack_layout.h"
#include "repack_test_util.h"

namespace etpack {
namespace {

using namespace etpack::testing;

struct DelegateRef {
  uint64_t location, index;
};

std::vector<DelegateRef> delegate_refs(const Blob& pte) {
  std::vector<DelegateRef> out;
  auto read = read_pte_program(pte);
  EXPECT_TRUE(read.ok());
  if (!read.ok()) return out;
  for (const Value& plan : read->program.get("execution_plan").items()) {
    const Value& delegates = plan.table().get("delegates");
    if (!delegates.is_items()) continue;
    for (const Value& d : delegates.items()) {
      const TableValue& ref = d.table().get("processed").table();
      out.push_back({ref.get_uint("location"), ref.get_uint("index")});
    }
  }
  return out;
}

// The delegates' blobs in execution-plan order (deserialized: inline).
std::vector<std::vector<uint8_t>> delegate_blobs(const Blob& pte) {
  std::vector<std::vector<uint8_t>> out;
  auto file = deserialize_pte_binary(pte);
  EXPECT_TRUE(file.ok());
  if (!file.ok()) return out;
  const Value& bdd = file->program.get("backend_delegate_data");
  for (const Value& plan : file->program.get("execution_plan").items()) {
    const Value& delegates = plan.table().get("delegates");
    if (!delegates.is_items()) continue;
    for (const Value& d : delegates.items()) {
      const uint64_t index = d.table().get("processed").table().get_uint("index");
      const Value& data = bdd.items()[index].table().get("data");
      const Blob b = data.is_scalars() ? data.scalars() : Blob();
      out.emplace_back(b.data(), b.data() + b.size());
    }
  }
  return out;
}

std::filesystem::path everything() { return std::filesystem::path(conformance_dir()) / "13_everything"; }

TEST(RepackLayout, SegmentAlignmentGivenKeepsDelegatesInTheirSharedSegments) {
  Blob input = load_file(everything() / "out.pte");
  std::vector<DelegateRef> before = delegate_refs(input);
  ASSERT_EQ(before.size(), 3u);
  RepackOptions options;
  options.data = ptds_beside(everything());
  options.config.segment_alignment = 4096;
  options.keep_segment_alignment = false;
  auto result = repack(FileSource::in_memory(input), options);
  ASSERT_TRUE(result.ok()) << result.error().message;
  Outputs out = materialize(result->artifacts);
  std::vector<DelegateRef> after = delegate_refs(out.pte);
  ASSERT_EQ(after.size(), 3u);
  std::set<uint64_t> segments;
  for (const DelegateRef& r : after) {
    EXPECT_EQ(r.location, 1u);  // SEGMENT
    segments.insert(r.index);
  }
  EXPECT_EQ(segments.size(), 2u);  // the two equal XNNPACK blobs share one
  EXPECT_EQ(delegate_blobs(out.pte), delegate_blobs(input));
  EXPECT_EQ(result->delegates.in_segments, 3u);
  EXPECT_EQ(result->delegates.inline_, 0u);
  EXPECT_EQ(result->delegates.moved_inline + result->delegates.moved_to_segments, 0u);
  EXPECT_EQ(result->segment_alignment, 4096u);
  EXPECT_FALSE(result->segment_alignment_kept);
  auto read = read_pte_program(out.pte);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->header->segment_base_offset % 4096, 0u);
  for (const Value& s : read->program.get("segments").items()) EXPECT_EQ(s.table().get_uint("offset") % 4096, 0u);
  // Nothing stored twice: at most one 4096 padding per segment more.
  EXPECT_LE(out.pte.size(), input.size() + (read->program.get("segments").items().size() + 1) * 4096);
}

// With no layout option an upstream vector repacks to itself (one with the
// constant placeholder: repack adds a missing one).
TEST(RepackLayout, NoOptionReproducesTheInputByteForByte) {
  for (const char* name : {"13_everything", "03_constants_align64_seg4096", "06_delegates_extracted_dedup", "05_delegate_inline",
                           "02_constants_default", "04_mutable_data"}) {
    SCOPED_TRACE(name);
    const std::filesystem::path dir = std::filesystem::path(conformance_dir()) / name;
    Blob input = load_file(dir / "out.pte");
    RepackOptions options;
    options.data = ptds_beside(dir);
    // Not in the file: the header's padding follows the constant alignment.
    if (std::string(name) == "03_constants_align64_seg4096") options.config.constant_tensor_alignment = 64;
    auto result = repack(FileSource::in_memory(input), options);
    ASSERT_TRUE(result.ok()) << result.error().message;
    Outputs out = materialize(result->artifacts);
    EXPECT_TRUE(out.pte.same_bytes(input));
    if (!out.pte.same_bytes(input)) {
      std::ofstream f("/tmp/trust-" + std::string(name) + ".pte", std::ios::binary);
      f.write(reinterpret_cast<const char*>(out.pte.data()), static_cast<std::streamsize>(out.pte.size()));
    }
    EXPECT_EQ(result->delegates.moved_inline + result->delegates.moved_to_segments, 0u);
  }
}

TEST(RepackLayout, ExplicitChoicesMoveDelegatesAndSaySo) {
  Blob input = load_file(everything() / "out.pte");
  RepackOptions options;
  options.data = ptds_beside(everything());
  options.keep_delegate_placement = false;
  options.config.extract_delegate_segments = false;
  auto inlined = repack(FileSource::in_memory(input), options);
  ASSERT_TRUE(inlined.ok()) << inlined.error().message;
  EXPECT_EQ(inlined->delegates.moved_inline, 3u);
  Outputs out = materialize(inlined->artifacts);
  for (const DelegateRef& r : delegate_refs(out.pte)) EXPECT_EQ(r.location, 0u);
  EXPECT_EQ(delegate_blobs(out.pte), delegate_blobs(input));

  // That output, repacked with no option, keeps them inline.
  RepackOptions again;
  again.data = {};
  for (const auto& [name, bytes] : out.ptds) again.data.emplace_back(name, FileSource::in_memory(bytes));
  auto kept = repack(FileSource::in_memory(out.pte), again);
  ASSERT_TRUE(kept.ok()) << kept.error().message;
  EXPECT_TRUE(materialize(kept->artifacts).pte.same_bytes(out.pte));
  EXPECT_EQ(kept->delegates.inline_, 3u);
}

// A file whose delegates are partly in segments (not what upstream writes,
// but valid) keeps each where it is.
TEST(RepackLayout, MixedPlacementIsKeptPerDelegate) {
  auto file = deserialize_pte_binary(load_file(everything() / "out.pte"));
  ASSERT_TRUE(file.ok());
  PteConfig config;
  config.extract_delegate_segments = true;
  config.extract_only = {true, false, true};
  auto written = serialize_pte_binary(file->program, file->mutable_data ? &*file->mutable_data : nullptr,
                                      file->named_data ? &*file->named_data : nullptr, config);
  ASSERT_TRUE(written.ok()) << written.error().message;
  Blob mixed = Blob::own(written->to_bytes().value());
  std::vector<DelegateRef> refs = delegate_refs(mixed);
  ASSERT_EQ(refs.size(), 3u);
  EXPECT_EQ(refs[0].location, 1u);
  EXPECT_EQ(refs[1].location, 0u);
  EXPECT_EQ(refs[2].location, 1u);
  RepackOptions options;
  options.data = ptds_beside(everything());
  auto result = repack(FileSource::in_memory(mixed), options);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_TRUE(materialize(result->artifacts).pte.same_bytes(mixed));
  EXPECT_EQ(result->delegates.in_segments, 2u);
  EXPECT_EQ(result->delegates.inline_, 1u);
}

TEST(RepackLayout, KeptSegmentAlignment) {
  // Upstream's default: 128, even where 32 would also land the base.
  EXPECT_EQ(kept_segment_alignment(1000, 1024, {{0, 10}}), 128u);
  // Written with 4096: the base shows it.
  EXPECT_EQ(kept_segment_alignment(1000, 4096, {{0, 10}, {4096, 5}}), 4096u);
  // Written with 16: 16 (the input shows no more).
  EXPECT_EQ(kept_segment_alignment(1000, 1008, {{0, 10}, {16, 4}}), 16u);
  // 2048 reproduces base and segments as well as 4096: the smaller one.
  EXPECT_EQ(kept_segment_alignment(3000, 4096, {{0, 10}, {2048, 5}}), 2048u);
  EXPECT_EQ(kept_segment_alignment(1000, 0, {}), std::nullopt);
}

// Upstream files with inline delegates and no extended header list the
// placeholder segment; they serialize again with delegates extracted.
TEST(RepackLayout, DeserializedInlineUpstreamFilesSerializeWithExtraction) {
  const std::filesystem::path root = std::filesystem::path(conformance_dir()).parent_path() / "delegates";
  size_t checked = 0;
  for (const auto& backend : std::filesystem::directory_iterator(root)) {
    if (!backend.is_directory()) continue;
    for (const auto& c : std::filesystem::directory_iterator(backend.path())) {
      const auto inline_pte = c.path() / "pte_inline" / "out.pte";
      if (!std::filesystem::exists(inline_pte)) continue;
      SCOPED_TRACE(inline_pte.string());
      Blob input = load_file(inline_pte);
      auto file = deserialize_pte_binary(input);
      ASSERT_TRUE(file.ok());
      const std::vector<Blob>* mutable_data = file->mutable_data ? &*file->mutable_data : nullptr;
      const NamedDataStoreOutput* named = file->named_data ? &*file->named_data : nullptr;
      PteConfig plain;
      auto same = serialize_pte_binary(file->program, mutable_data, named, plain);
      ASSERT_TRUE(same.ok()) << same.error().message;
      EXPECT_TRUE(Blob::own(same->to_bytes().value()).same_bytes(input));  // upstream's round trip
      PteConfig extract;
      extract.extract_delegate_segments = true;
      auto moved = serialize_pte_binary(file->program, mutable_data, named, extract);
      ASSERT_TRUE(moved.ok()) << moved.error().message;
      Blob out = Blob::own(moved->to_bytes().value());
      // What upstream writes from the exported program with extraction.
      const auto segment_pte = c.path() / "pte_segment" / "out.pte";
      if (std::filesystem::exists(segment_pte)) {
        EXPECT_TRUE(out.same_bytes(load_file(segment_pte)));
      }
      EXPECT_EQ(delegate_blobs(out), delegate_blobs(input));
      // The output is judged as the input is: a delegate's named keys the
      // file alone lacks (x08's .ptd, x01's empty keys) stay the same errors.
      auto codes = [](const ValidationReport& r) {
        std::vector<std::string> out;
        for (const Finding& f : r.errors) out.push_back(f.code + " " + f.path);
        return out;
      };
      EXPECT_EQ(codes(validate_artifacts(out, {})), codes(validate_artifacts(input, {})));
      ++checked;
    }
  }
  EXPECT_GE(checked, 5u);
}

}  // namespace
}  // namespace etpack
