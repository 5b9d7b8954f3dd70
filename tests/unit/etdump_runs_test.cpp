// read_etdump_runs (src/read/etdump_runs.cpp): the runs profile reads,
// walked from the flatbuffer without the decoded tree. The same blocks as
// read_etdump on every recording and on every corruption both read; a
// crafted file whose runs all point at one events vector (a DAG: N x M
// events from 4N + 4M bytes) refused within the decoder's memory budget.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "read/etdump_reader.h"
#include "unit/test_files.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;
using testing::etdump_root;
using testing::load_file;
using testing::read_bytes;

void expect_same_blocks(const EtdumpFile& a, const EtdumpFile& b) {
  ASSERT_EQ(a.blocks.size(), b.blocks.size());
  for (size_t i = 0; i < a.blocks.size(); ++i) {
    const EtdumpBlock &x = a.blocks[i], &y = b.blocks[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.bundled_input_index, y.bundled_input_index);
    EXPECT_EQ(x.event_count, y.event_count);
    ASSERT_EQ(x.profile.size(), y.profile.size());
    for (size_t k = 0; k < x.profile.size(); ++k) {
      const EtdumpProfileEvent &e = x.profile[k], &f = y.profile[k];
      EXPECT_EQ(e.event_index, f.event_index);
      EXPECT_EQ(e.name, f.name);
      EXPECT_EQ(e.chain_index, f.chain_index);
      EXPECT_EQ(e.instruction_id, f.instruction_id);
      EXPECT_EQ(e.delegate_debug_id_int, f.delegate_debug_id_int);
      EXPECT_EQ(e.delegate_debug_id_str, f.delegate_debug_id_str);
      EXPECT_EQ(e.delegate_debug_metadata, f.delegate_debug_metadata);
      EXPECT_EQ(e.start_time, f.start_time);
      EXPECT_EQ(e.end_time, f.end_time);
    }
  }
}

void put32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
void put16(std::vector<uint8_t>& b, size_t at, uint16_t v) {
  b[at] = static_cast<uint8_t>(v), b[at + 1] = static_cast<uint8_t>(v >> 8);
}

// A size-prefixed ETDump whose `runs` RunData offsets all point at one
// RunData, whose `events` offsets all point at one Event holding an empty
// ProfileEvent. Offsets below count from the flatbuffer (after the prefix).
std::vector<uint8_t> dag_etdump(uint32_t runs, uint32_t events) {
  const size_t rd = 52 + 4 * size_t{runs}, evs = rd + 8, e = evs + 4 + 4 * size_t{events}, p = e + 8, end = p + 4;
  std::vector<uint8_t> b(4 + end, 0);
  const size_t o = 4;  // the size prefix
  put32(b, 0, static_cast<uint32_t>(end));
  put32(b, o + 0, 40);                         // root table
  std::memcpy(&b[o + 4], "ED00", 4);
  put16(b, o + 8, 8), put16(b, o + 10, 8), put16(b, o + 12, 0), put16(b, o + 14, 4);  // ETDump vtable: run_data at +4
  put16(b, o + 16, 12), put16(b, o + 18, 8), put16(b, o + 26, 4);                    // RunData vtable: events at +4
  put16(b, o + 28, 6), put16(b, o + 30, 8), put16(b, o + 32, 4);                     // Event vtable: profile_event at +4
  put16(b, o + 36, 4), put16(b, o + 38, 4);                                          // ProfileEvent vtable: no field
  put32(b, o + 40, 32), put32(b, o + 44, 4);   // root: vtable at 8, run_data at 48
  put32(b, o + 48, runs);
  for (size_t i = 0; i < runs; ++i) put32(b, o + 52 + 4 * i, static_cast<uint32_t>(rd - (52 + 4 * i)));
  put32(b, o + rd, static_cast<uint32_t>(rd - 16)), put32(b, o + rd + 4, 4);
  put32(b, o + evs, events);
  for (size_t j = 0; j < events; ++j) put32(b, o + evs + 4 + 4 * j, static_cast<uint32_t>(e - (evs + 4 + 4 * j)));
  put32(b, o + e, static_cast<uint32_t>(e - 28)), put32(b, o + e + 4, 4);
  put32(b, o + p, static_cast<uint32_t>(p - 36));
  return b;
}

}  // namespace

TEST(EtdumpRuns, SameBlocksAsTheDecodedTreeOnEveryRecording) {
  size_t seen = 0;
  std::error_code ec;
  for (const auto& dir : fs::directory_iterator(etdump_root(), ec)) {
    for (const auto& f : fs::directory_iterator(dir.path(), ec)) {
      if (f.path().extension() != ".etdp") continue;
      auto whole = read_etdump(load_file(f.path()));
      auto runs = read_etdump_runs(load_file(f.path()));
      ASSERT_TRUE(whole.ok() && runs.ok()) << f.path();
      expect_same_blocks(*whole, *runs);
      ++seen;
    }
  }
  EXPECT_GT(seen, 10u);
}

TEST(EtdumpRuns, ReadsWhatTheDecoderReadsUnderCorruption) {
  const auto good = read_bytes(etdump_root() / "e13_everything_r2" / "e13_everything_r2.etdp");
  ASSERT_GT(good.size(), 1000u);
  for (size_t i = 0; i < good.size(); ++i) {
    std::vector<uint8_t> bad = good;
    bad[i] ^= 0xff;
    auto whole = read_etdump(Blob::own(bad));
    auto runs = read_etdump_runs(Blob::own(bad));
    if (!runs.ok()) {
      EXPECT_NE(runs.error().message.find("byte offset"), std::string::npos) << runs.error().message;
    }
    if (!whole.ok()) continue;
    ASSERT_TRUE(runs.ok()) << i << ": " << runs.error().message;  // the walk checks a subset of what the decoder does
    expect_same_blocks(*whole, *runs);
  }
}

TEST(EtdumpRuns, ADagOfRunsIsRefusedWithinTheBudget) {
  auto small = read_etdump_runs(Blob::own(dag_etdump(2, 3)));
  ASSERT_TRUE(small.ok()) << small.error().message;
  ASSERT_EQ(small->blocks.size(), 2u);
  for (const EtdumpBlock& b : small->blocks) {
    ASSERT_EQ(b.profile.size(), 3u);
    EXPECT_EQ(b.profile[2].event_index, 2u);
    EXPECT_EQ(b.profile[2].instruction_id, -1);  // the schema's default
  }
  // 2,000 runs of 20,000 events: 40M events from 88 KB.
  auto dag = read_etdump_runs(Blob::own(dag_etdump(2000, 20000)));
  ASSERT_FALSE(dag.ok());
  EXPECT_EQ(dag.error().code, ErrorCode::kResourceLimit) << dag.error().message;
  EXPECT_NE(dag.error().message.find("byte offset"), std::string::npos);
}

}  // namespace etpack
