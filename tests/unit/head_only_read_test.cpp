// validate and inspect from a head and an external file give the same
// report as from the whole file in memory. The head is a separate copy of
// just the bytes a host would read first, so a read past it is a heap
// overflow that AddressSanitizer catches; the rest of the file is reachable
// only through the host's peeker.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "core/json.h"
#include "inspect/inspect.h"
#include "read/ptd_reader.h"
#include "read/pte_reader.h"
#include "validate/validate.h"
#include "unit/test_files.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;

// The host's files, by source id (index).
std::vector<std::vector<uint8_t>> g_files;
bool g_peek_allowed = true;

bool peek(uint32_t source, uint64_t offset, uint64_t size, uint8_t* dst, void*) {
  if (!g_peek_allowed || source >= g_files.size()) return false;
  const std::vector<uint8_t>& f = g_files[source];
  if (offset > f.size() || size > f.size() - offset) return false;
  std::memcpy(dst, f.data() + offset, static_cast<size_t>(size));
  return true;
}

struct HeadOnly {
  std::vector<uint8_t> head;  // its own allocation: nothing past it is readable
  FileSource source;
};

// What a host does: probe, compute the head size (leniently), read the head.
// The host of the files in g_files: peeks and reads (no digests). inspect
// and validate read a delegate's segment through the host to decode its
// payload, as the JS hosts do for files; a host that cannot read gives
// `payload: null` there instead.
class PeekHost : public ExternalHost {
 public:
  std::optional<Digest> digest(uint32_t, uint64_t, uint64_t) override { return std::nullopt; }
  bool read(uint32_t source, uint64_t offset, uint64_t size, uint8_t* dst) override {
    return etpack::peek(source, offset, size, dst, nullptr);
  }
  bool peek(uint32_t source, uint64_t offset, uint64_t size, uint8_t* dst) override {
    return etpack::peek(source, offset, size, dst, nullptr);
  }
};

HeadOnly open_external(const std::vector<uint8_t>& bytes, bool ptd) {
  g_files.push_back(bytes);
  const uint64_t size = bytes.size();
  Blob probe = Blob::view(bytes.data(), static_cast<size_t>(std::min<uint64_t>(size, 64)));
  Result<uint64_t> head_size = ptd ? ptd_head_size(probe, size) : pte_head_size(probe, size);
  // Asked again with more bytes while the answer is larger (a .pte without eh00).
  while (!ptd && head_size.ok() && *head_size > probe.size()) {
    probe = Blob::view(bytes.data(), static_cast<size_t>(std::min<uint64_t>(size, *head_size)));
    head_size = pte_head_size(probe, size);
  }
  HeadOnly out;
  const uint64_t n = head_bytes_to_read(head_size.ok() ? std::optional<uint64_t>(*head_size) : std::nullopt, size);
  out.head.assign(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
  Blob::External info;
  info.source = static_cast<uint32_t>(g_files.size() - 1);
  info.host = std::make_shared<PeekHost>();
  out.source = {Blob::view(out.head.data(), out.head.size()), Blob::external(info, size)};
  return out;
}

std::vector<fs::path> files_under(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && (e.path().extension() == ".pte" || e.path().extension() == ".ptd")) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Variants of a file: itself, dirty padding near the end, truncations,
// a grown tail, and header fields pointing elsewhere.
std::vector<std::vector<uint8_t>> variants(const std::vector<uint8_t>& bytes) {
  std::vector<std::vector<uint8_t>> out{bytes};
  if (bytes.size() > 200) {
    for (size_t cut : {bytes.size() - 1, bytes.size() / 2, size_t{100}, size_t{40}, size_t{7}})
      out.emplace_back(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut));
    std::vector<uint8_t> longer = bytes;
    longer.insert(longer.end(), 70000, 0);
    out.push_back(std::move(longer));
    for (size_t field : {size_t{16}, size_t{24}, size_t{32}, size_t{40}}) {
      std::vector<uint8_t> bent = bytes;
      bent[field] ^= 0x40;
      out.push_back(std::move(bent));
    }
  }
  return out;
}

class HeadOnlyRead : public ::testing::Test {
 protected:
  void SetUp() override {
    g_files.clear();
    g_peek_allowed = true;
  }
};

TEST_F(HeadOnlyRead, ValidateAndInspectMatchTheWholeFile) {
  std::vector<fs::path> files = files_under(ETPACK_ARTIFACTS_DIR);
  for (const fs::path& p : files_under(ETPACK_CONFORMANCE_DIR)) files.push_back(p);
  ASSERT_GT(files.size(), 50u);
  size_t compared = 0;
  for (const fs::path& path : files) {
    const bool ptd = path.extension() == ".ptd";
    const std::vector<uint8_t> original = testing::read_bytes(path);
    for (const std::vector<uint8_t>& bytes : variants(original)) {
      SCOPED_TRACE(path.string() + " (" + std::to_string(bytes.size()) + " bytes)");
      Blob whole = Blob::view(bytes.data(), bytes.size());
      HeadOnly external = open_external(bytes, ptd);

      const std::string expected = write_json((ptd ? validate_ptd("f", whole) : validate_artifacts(whole, {})).to_json());
      Result<ValidationReport> got = ptd ? validate_ptd("f", external.source) : validate_artifacts(external.source, {});
      ASSERT_TRUE(got.ok()) << got.error().message;
      EXPECT_EQ(write_json(got->to_json()), expected);

      Result<Json> inspect_whole = ptd ? inspect_ptd(whole) : inspect_pte(whole);
      Result<Json> inspect_head = ptd ? inspect_ptd(external.source) : inspect_pte(external.source);
      ASSERT_EQ(inspect_whole.ok(), inspect_head.ok());
      if (inspect_whole.ok()) {
        EXPECT_EQ(write_json(*inspect_head), write_json(*inspect_whole));
      } else {
        EXPECT_EQ(inspect_head.error().code, inspect_whole.error().code);
      }
      ++compared;
    }
  }
  EXPECT_GT(compared, 300u);
}

TEST_F(HeadOnlyRead, PaddingThePeekerCannotReadIsLeftUnchecked) {
  std::vector<uint8_t> bytes = testing::read_bytes(fs::path(ETPACK_ARTIFACTS_DIR) / "arduino_add.pte");
  bytes[1100] = 0x5A;  // padding between the flatbuffer and the segment data
  HeadOnly external = open_external(bytes, false);
  external.head.resize(1040);  // just the program (its eh00 program_size): the padding is past it...
  external.source.head = Blob::view(external.head.data(), external.head.size());
  Result<ValidationReport> peeked = validate_artifacts(external.source, {});
  ASSERT_TRUE(peeked.ok());
  ASSERT_EQ(peeked->warnings.size(), 1u) << write_json(peeked->to_json());
  EXPECT_EQ(peeked->warnings[0].code, finding::kPaddingNotZero);
  EXPECT_EQ(peeked->warnings[0].offset, 1100u);
  g_peek_allowed = false;  // ...and the host cannot read more now (an unopened Blob)
  Result<ValidationReport> blind = validate_artifacts(external.source, {});
  ASSERT_TRUE(blind.ok());
  EXPECT_TRUE(blind->ok());
  EXPECT_TRUE(blind->warnings.empty()) << write_json(blind->to_json());
}

TEST_F(HeadOnlyRead, ShortOrExternalHeadsAreArgumentErrors) {
  std::vector<uint8_t> bytes = testing::read_bytes(fs::path(ETPACK_ARTIFACTS_DIR) / "arduino_add.pte");
  HeadOnly external = open_external(bytes, false);
  FileSource short_head{Blob::view(bytes.data(), 32), external.source.file};
  Result<ValidationReport> r = validate_artifacts(short_head, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  FileSource external_head{external.source.file, external.source.file};
  EXPECT_FALSE(validate_ptd("x", external_head).ok());
  // A head that stops inside the flatbuffer: a finding, not a crash.
  FileSource cut{Blob::view(bytes.data(), 100), external.source.file};
  Result<ValidationReport> cut_report = validate_artifacts(cut, {});
  ASSERT_TRUE(cut_report.ok());
  EXPECT_FALSE(cut_report->ok());
  EXPECT_FALSE(inspect_pte(cut).ok());
}

}  // namespace
}  // namespace etpack
