// Hostile and unusual inputs: small files that would decode to huge trees
// (flatbuffer DAGs) are refused by the decoder's memory budget with
// RESOURCE_LIMIT; big valid files (200k named-data keys, 150k segments) are
// read, validated and inspected in time linear in their counts. Sizes are
// built here, never committed; speed is measured by bench/hostile.mjs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "encode/ptd_writer.h"
#include "encode/pte_writer.h"
#include "format/headers.h"
#include "fuzz/exercise.h"
#include "fuzz/hostile_seeds.h"
#include "model/value_json.h"
#include "model/named_data_store.h"
#include "read/fb_decoder.h"
#include "inspect/inspect.h"
#include "read/ptd_reader.h"
#include "read/pte_reader.h"
#include "validate/validate.h"
#include "schema/schema.h"
#include "unit/flatbuffer_bytes.h"
#include "unit/test_files.h"

namespace etpack {
namespace {

namespace fs = std::filesystem;

bool has_code(const ValidationReport& r, const std::string& code) {
  for (const auto& f : r.errors)
    if (f.code == code) return true;
  return false;
}

// The flatbuffer part of a real .pte/.ptd, to decode on its own.
Blob flatbuffer_of(const Blob& file, bool ptd) {
  if (ptd) {
    auto h = parse_ptd_header(file.data(), file.size());
    if (h.ok() && *h) return file.slice(0, (*h)->flatbuffer_offset + (*h)->flatbuffer_size);
  } else {
    auto h = parse_pte_header(file.data(), file.size());
    if (h.ok() && *h) return file.slice(0, (*h)->program_size);
  }
  return file;
}

// True when the report's one error is CONSTANT_SEGMENT_NO_PLACEHOLDER: the
// crafted programs here carry no constant segment at all.
bool only_placeholder_missing(const ValidationReport& report) {
  return report.errors.size() == 1 && report.errors[0].code == finding::kConstantSegmentNoPlaceholder;
}

TEST(HostileInputs, RealFilesDecodeWellWithinTheMemoryBudget) {
  // The default budget is 32 bytes of model per input byte plus 8 MiB;
  // upstream's files need at most 16 and nothing of the allowance.
  const fs::path roots[] = {ETPACK_ARTIFACTS_DIR, ETPACK_CONFORMANCE_DIR};
  size_t checked = 0;
  for (const fs::path& root : roots) {
    std::error_code ec;
    for (const auto& entry : fs::recursive_directory_iterator(root, ec)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".pte" && ext != ".ptd") continue;
      Blob file = testing::load_file(entry.path());
      const bool ptd = ext == ".ptd";
      auto r0 = decode_flatbuffer(flatbuffer_of(file, ptd), ptd ? *flat_tensor_schema().root : *program_schema().root);
      if (!r0.ok()) continue;  // the error-case inputs
      DecodeLimits tight;
      tight.memory_factor = 20;
      tight.memory_allowance = 0;
      auto r = decode_flatbuffer(flatbuffer_of(file, ptd), ptd ? *flat_tensor_schema().root : *program_schema().root,
                                 0, tight);
      EXPECT_TRUE(r.ok()) << entry.path() << ": " << r.error().message;
      ++checked;
    }
  }
  EXPECT_GE(checked, 40u);
}

TEST(HostileInputs, FlatbufferDagIsRefusedWithResourceLimit) {
  // 1000 offsets to one ExecutionPlan whose values hold a million offsets to
  // one EValue: ~4 MB claiming 10^9 tables.
  const std::vector<uint8_t> dag = fuzz::dag_pte(1000, 1000000);
  ASSERT_GT(dag.size(), 4000000u);
  const Blob file = Blob::view(dag.data(), dag.size());
  for (auto* read : {&deserialize_pte_binary, static_cast<Result<PteFile> (*)(const Blob&)>(&read_pte_program)}) {
    auto r = read(file);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ErrorCode::kResourceLimit);
    EXPECT_NE(r.error().message.find("memory budget exceeded at byte offset "), std::string::npos) << r.error().message;
    EXPECT_STREQ(error_code_name(r.error().code), "RESOURCE_LIMIT");
  }
  auto summary = inspect_pte(file);
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.error().code, ErrorCode::kResourceLimit);
  EXPECT_TRUE(has_code(validate_artifacts(file, {}), finding::kFlatbufferLimitExceeded));
}

TEST(HostileInputs, ManySmallDistinctTablesAreChargedToo) {
  // Not a DAG: 200k distinct 4-byte ExecutionPlan tables (each a Value slot
  // per schema field once decoded): 2.4 MB of file, far more of model.
  testing::FlatbufferBytes fb;
  size_t program = fb.table(fb.vtable(8, {0, 4}));
  size_t plans_field = fb.u32(0);
  const uint32_t n = 200000;
  size_t vec = fb.u32(n);
  std::vector<size_t> slots;
  for (uint32_t i = 0; i < n; ++i) slots.push_back(fb.u32(0));
  size_t vt = fb.vtable(4, {});
  for (size_t s : slots) fb.point(s, fb.table(vt));
  fb.point(plans_field, vec);
  fb.root(program);
  DecodeLimits limits;
  auto r = decode_flatbuffer(fb.blob(), *program_schema().root, 0, limits);
  // Model bytes per file byte: a plan slot (one Value) plus a table of
  // ExecutionPlan's fields, for 8 bytes of file.
  const uint64_t need = n * (sizeof(Value) + sizeof(TableValue) + 10 * sizeof(Value));
  if (need > fb.bytes.size() * limits.memory_factor + limits.memory_allowance) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ErrorCode::kResourceLimit);
  } else {
    EXPECT_TRUE(r.ok());
  }
}

TEST(HostileInputs, SharedStringsAreChargedPerReference) {
  // Operators whose name strings all point at one 64 KB string.
  testing::FlatbufferBytes fb;
  size_t program = fb.table(fb.vtable(8, {0, 4}));
  size_t plans_field = fb.u32(0);
  size_t plans = fb.u32(1);
  size_t plan_slot = fb.u32(0);
  size_t plan = fb.table(fb.vtable(8, {0, 0, 0, 0, 0, 0, 0, 4}));  // field 6: operators
  size_t ops_field = fb.u32(0);
  const uint32_t n = 20000;
  size_t ops = fb.u32(n);
  std::vector<size_t> slots;
  for (uint32_t i = 0; i < n; ++i) slots.push_back(fb.u32(0));
  size_t op_vt = fb.vtable(8, {4});
  size_t op = fb.table(op_vt);
  size_t name_field = fb.u32(0);
  size_t name = fb.u32(65536);
  fb.bytes.resize(fb.bytes.size() + 65537, 'a');
  fb.point(name_field, name);
  for (size_t s : slots) fb.point(s, op);
  fb.point(ops_field, ops);
  fb.point(plan_slot, plan);
  fb.point(plans_field, plans);
  fb.root(program);
  auto r = decode_flatbuffer(fb.blob(), *program_schema().root);
  ASSERT_FALSE(r.ok());  // 20000 x 64 KB = 1.3 GB of names from 150 KB
  EXPECT_EQ(r.error().code, ErrorCode::kResourceLimit);
}

TEST(HostileInputs, PtdWithManyKeysReadsInLinearTime) {
  // 200k keys over one shared buffer; then the same with one key repeated.
  // With the old pairwise key check this took minutes (bench/hostile.mjs
  // times 1M keys through the CLI).
  const uint32_t n = 200000;
  std::vector<uint8_t> ptd = fuzz::many_keys_ptd(n);
  const Blob file = Blob::view(ptd.data(), ptd.size());
  auto read = deserialize_ptd(file);
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->payload.named_data.size(), n);
  EXPECT_EQ(read->payload.named_data.back().first, "k199999");
  ValidationReport report = validate_ptd("many.ptd", file);
  EXPECT_TRUE(report.ok()) << write_json(report.to_json()).substr(0, 400);
  auto summary = inspect_ptd(file);
  ASSERT_TRUE(summary.ok()) << summary.error().message;

  // The last key renamed to an earlier one (same length: same layout).
  std::vector<uint8_t> dup = ptd;
  const std::string last = "k199999", repeated = "k100077";
  auto at = std::search(dup.begin(), dup.end(), last.begin(), last.end());
  ASSERT_NE(at, dup.end());
  std::copy(repeated.begin(), repeated.end(), at);
  auto bad = deserialize_ptd(Blob::view(dup.data(), dup.size()));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kMalformedFile);
  EXPECT_NE(bad.error().message.find("'k100077' appears twice"), std::string::npos);
  EXPECT_TRUE(has_code(validate_ptd("dup.ptd", Blob::view(dup.data(), dup.size())), finding::kDuplicateKey));
}

TEST(HostileInputs, PteWithManySegmentsIsReadValidatedAndInspected) {
  // Named-data buffers of 72 bytes that agree in their first and last
  // 32 bytes (one dedup fingerprint), so each becomes its own segment and
  // deduplication must tell them apart by digest, not pairwise.
  // 50k here to keep the suite fast under sanitizers; bench/hostile.mjs
  // runs 150k through the CLI.
  const uint32_t n = 50000;
  std::vector<uint8_t> pte = fuzz::many_segments_pte(n);
  ASSERT_FALSE(pte.empty());
  const Blob file = Blob::view(pte.data(), pte.size());
  auto read = deserialize_pte_binary(file);
  ASSERT_TRUE(read.ok()) << read.error().message;
  ASSERT_TRUE(read->named_data.has_value());
  EXPECT_EQ(read->named_data->buffers.size(), n);
  EXPECT_EQ(read->named_data->pte_data.size(), n);
  // The crafted program has no constant segment: its one error is the
  // missing placeholder (a file the runtime's CMake build refuses).
  ValidationReport report = validate_artifacts(file, {});
  EXPECT_TRUE(only_placeholder_missing(report)) << write_json(report.to_json()).substr(0, 400);
  auto summary = inspect_pte(file);
  ASSERT_TRUE(summary.ok()) << summary.error().message;
}

TEST(HostileInputs, SpecialDoublesSurviveTheFileBitForBit) {
  std::vector<uint8_t> pte = fuzz::special_doubles_pte();
  ASSERT_FALSE(pte.empty());
  const Blob file = Blob::view(pte.data(), pte.size());
  auto read = deserialize_pte_binary(file);
  ASSERT_TRUE(read.ok()) << read.error().message;
  const Value::Items& values = read->program.get("execution_plan").items()[0].table().get("values").items();
  const std::vector<uint64_t> want = fuzz::special_double_bits();
  ASSERT_EQ(values.size(), want.size() + 1);
  for (size_t i = 0; i < want.size(); ++i) {
    const Value& field = values[i].table().get("val").table().get("double_val");
    if (want[i] == 0x8000000000000000ull) {
      // A Double of -0.0 compares equal to the default 0.0: upstream's
      // builder omits the field, and so do we (it reads back as +0.0).
      EXPECT_TRUE(field.absent()) << i;
      continue;
    }
    double d = field.scalar().d;
    uint64_t bits;
    std::memcpy(&bits, &d, 8);
    EXPECT_EQ(bits, want[i]) << i;
  }
  const Blob& list = values.back().table().get("val").table().get("items").scalars();
  ASSERT_EQ(list.size(), 8 * want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    uint64_t bits;
    std::memcpy(&bits, list.data() + 8 * i, 8);
    EXPECT_EQ(bits, want[i]) << i;
  }
  // Written again from the model: the same bytes.
  EXPECT_EQ(fuzz::cord_bytes(serialize_pte_binary(read->program, nullptr, nullptr, PteConfig{})), pte);
  // As program JSON (NaN payloads become Python's NaN there; the rest exact).
  const std::string json = write_json(table_to_json(read->program));
  EXPECT_NE(json.find("{\"double_val\": NaN}"), std::string::npos);
  EXPECT_NE(json.find("{\"double_val\": \"-inf\"}"), std::string::npos);
  EXPECT_NE(json.find("{\"double_val\": 5e-324}"), std::string::npos);
  EXPECT_NE(json.find("[NaN, NaN, NaN, Infinity, -Infinity, -0.0, 5e-324]"), std::string::npos) << json;
  // The crafted program is values only (no constant segment, no chains):
  // validate refuses it for that structure, never for its doubles.
  const ValidationReport report = validate_artifacts(file, {});
  for (const Finding& f : report.errors) {
    EXPECT_TRUE(f.code == finding::kConstantSegmentNoPlaceholder || f.code == finding::kMissingField)
        << f.code << ": " << f.message;
  }
}

TEST(HostileInputs, DeeplyNestedJsonIsRefusedWithoutRecursingDeep) {
  const std::string deep(1000000, '[');
  auto doc = parse_json(deep);
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.error().code, ErrorCode::kInvalidJson);
  std::string program = "{\"execution_plan\": [{\"values\": [{\"val\": " + std::string(100000, '[') ;
  auto t = table_from_json_text(program, *program_schema().root);
  ASSERT_FALSE(t.ok());
  auto skipped = table_from_json_text("{\"execution_plan\": [{\"values\": [{\"val\": " + std::string(100000, '{'),
                                      *program_schema().root);
  ASSERT_FALSE(skipped.ok());
  EXPECT_EQ(skipped.error().code, ErrorCode::kInvalidJson);
}

// Small variants of every crafted case keep the readers' promises (the fuzz
// target's checks); with ETPACK_WRITE_HOSTILE_SEEDS=dir they are also written
// there (how tests/fuzz/regressions/hostile_* were made).
TEST(HostileInputs, SmallCraftedCasesKeepTheReadersPromises) {
  const std::pair<const char*, std::vector<uint8_t>> seeds[] = {
      {"hostile_dag.pte", fuzz::dag_pte(1000, 1000)},
      {"hostile_dag_wide.pte", fuzz::dag_pte(3, 20000)},
      {"hostile_keys.ptd", fuzz::many_keys_ptd(2000)},
      {"hostile_segments.pte", fuzz::many_segments_pte(300)},
      {"hostile_doubles.pte", fuzz::special_doubles_pte()},
  };
  const char* out_dir = std::getenv("ETPACK_WRITE_HOSTILE_SEEDS");
  for (const auto& [name, bytes] : seeds) {
    ASSERT_FALSE(bytes.empty()) << name;
    const Blob b = Blob::view(bytes.data(), bytes.size());
    for (const std::string& broken : fuzz::exercise(b, b)) ADD_FAILURE() << name << ": " << broken;
    if (out_dir != nullptr && *out_dir != '\0') {
      std::ofstream out(fs::path(out_dir) / name, std::ios::binary);
      out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
  }
}

}  // namespace
}  // namespace etpack
