// Reader and writer against each other on real upstream bytes: every .pte
// output in the conformance set (and the real artifacts), read back and
// written again with its case's config, must come out byte for byte — except
// 08b, whose named data asked for an alignment the file does not record.
#include <gtest/gtest.h>

#include "conformance/conformance_runner.h"
#include "encode/pte_writer.h"
#include "model/value_json.h"
#include "read/pte_reader.h"
#include "read/ptd_reader.h"

namespace etpack {
namespace {

using conformance::read_file;
using conformance::read_json_file;

PteConfig config_of(const Json& c) {
  PteConfig config;
  if (const Json* j = c.find("config")) {
    config.extract_delegate_segments = j->find("extract_delegate_segments")->bool_value();
    config.segment_alignment = j->find("segment_alignment")->as_uint64().value_or(128);
    if (!j->find("constant_tensor_alignment")->is_null())
      config.constant_tensor_alignment = j->find("constant_tensor_alignment")->as_uint64();
    if (!j->find("delegate_alignment")->is_null()) config.delegate_alignment = j->find("delegate_alignment")->as_uint64();
  }
  return config;
}

std::vector<uint8_t> rewrite(const Blob& file, const PteConfig& config) {
  auto pte = deserialize_pte_binary(file);
  EXPECT_TRUE(pte.ok()) << pte.error().message;
  if (!pte.ok()) return {};
  auto out = serialize_pte_binary(pte->program, pte->mutable_data ? &*pte->mutable_data : nullptr,
                                  pte->named_data ? &*pte->named_data : nullptr, config);
  EXPECT_TRUE(out.ok()) << out.error().message;
  if (!out.ok()) return {};
  return out->to_bytes().value();
}

TEST(RoundTrip, EveryConformancePteRewritesByteForByte) {
  int checked = 0;
  for (const std::string& dir : conformance::find_cases({ETPACK_CONFORMANCE_DIR})) {
    auto c = read_json_file(dir + "/case.json");
    ASSERT_TRUE(c.ok());
    const Json* expected = c->find("expected");
    if (c->find("store_ops") || c->find("deserialize_pte") || c->find("deserialize_ptd") || !expected->find("pte"))
      continue;
    if (dir.find("08b_") != std::string::npos) continue;
    auto file = read_file(dir + "/" + expected->find("pte")->text());
    ASSERT_TRUE(file.ok());
    std::vector<uint8_t> again = rewrite(*file, config_of(*c));
    EXPECT_TRUE(Blob::view(again.data(), again.size()).same_bytes(*file)) << dir;
    ++checked;
  }
  EXPECT_GE(checked, 25);
}

TEST(RoundTrip, ArduinoArtifactRewritesByteForByte) {
  auto file = read_file(std::string(ETPACK_ARTIFACTS_DIR) + "/arduino_add.pte");
  ASSERT_TRUE(file.ok());
  std::vector<uint8_t> again = rewrite(*file, PteConfig{});
  EXPECT_TRUE(Blob::view(again.data(), again.size()).same_bytes(*file));
}

TEST(RoundTrip, AllArtifactsRead) {
  for (const char* name : {"add.pte", "arduino_add.pte", "module_linear_no_constant_segment.pte"}) {
    auto file = read_file(std::string(ETPACK_ARTIFACTS_DIR) + "/" + name);
    ASSERT_TRUE(file.ok());
    auto pte = deserialize_pte_binary(*file);
    ASSERT_TRUE(pte.ok()) << name << ": " << pte.error().message;
    EXPECT_TRUE(pte->program.get("execution_plan").is_items()) << name;
  }
}

TEST(RoundTrip, RestoredBytesAreSlicesOfTheInput) {
  auto file = read_file(std::string(ETPACK_ARTIFACTS_DIR) + "/arduino_add.pte");
  ASSERT_TRUE(file.ok());
  auto pte = deserialize_pte_binary(*file);
  ASSERT_TRUE(pte.ok());
  const auto& buffers = pte->program.get("constant_buffer").items();
  ASSERT_FALSE(buffers.empty());
  const Blob& storage = buffers.back().table().get("storage").scalars();
  EXPECT_GE(storage.data(), file->data());
  EXPECT_LE(storage.data() + storage.size(), file->data() + file->size());
}

TEST(RoundTrip, InputProgramIsNotModified) {
  auto c = read_json_file(std::string(ETPACK_CONFORMANCE_DIR) + "/13_everything/program.json");
  ASSERT_TRUE(c.ok());
  auto program = table_from_json(*c, *program_schema().root);
  ASSERT_TRUE(program.ok());
  std::string before = write_json(table_to_json(*program));
  PteConfig config;
  config.extract_delegate_segments = true;
  auto out = serialize_pte_binary(*program, nullptr, nullptr, config);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(write_json(table_to_json(*program)), before);
}

}  // namespace
}  // namespace etpack
