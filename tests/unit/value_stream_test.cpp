// The value stream a JavaScript host writes for a program object
// (core/value_stream.h) reads into the same model, with the same errors, as
// the program's JSON text: every conformance program.json, written as a
// stream the way npm/src/program-stream.mjs writes one, gives the model its
// text gives. Broken streams (every truncation, bytes flipped at random)
// are refused with an error, never read out of bounds (ASan build).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>

#include "core/json.h"
#include "core/le_bytes.h"
#include "core/value_stream.h"
#include "model/stream_table.h"
#include "model/value_json.h"
#include "schema/schema.h"
#include "test_files.h"
#include "unit/stream_builder.h"

namespace etpack {
namespace {

using testing::StreamBuilder;
using testing::stream_of;

Result<TableValue> read_stream(const std::string& bytes) { return table_from_value_stream(bytes, *program_schema().root); }

std::string program_with_values(const std::string& values) {
  return R"({"version": 0, "execution_plan": [{"name": "forward", "values": [)" + values +
         R"(], "inputs": [], "outputs": [], "chains": [], "operators": [], "delegates": [], "non_const_buffer_sizes": []}],)"
         R"( "constant_buffer": [], "backend_delegate_data": [], "segments": []})";
}

TEST(ValueStream, EveryConformanceProgramReadsAsItsText) {
  size_t checked = 0;
  for (const auto& [path, text] : testing::conformance_programs()) {
    auto from_stream = read_stream(stream_of(text));
    ASSERT_TRUE(from_stream.ok()) << path << ": " << from_stream.error().message;
    EXPECT_EQ(write_json(table_to_json(*from_stream)), text) << path;
    ++checked;
  }
  EXPECT_GE(checked, 38u) << "program.json files found under " << testing::conformance_root();
}

TEST(ValueStream, SchemaErrorsAreTheTextsWithTheSamePath) {
  for (const std::string values : {
           R"({"val": {"int_val": 5}, "val_type": "Int"}, {"val": {"int_val": 1.5}, "val_type": "Int"})",
           R"({"val": {"items": [1, 2, "x"]}, "val_type": "IntList"})",
           R"({"val_type": "Tensor", "val": {"scalar_type": 300}})",
           R"({"val_type": "Nope", "val": null})",
           R"({"val": {"bool_val": 2}, "val_type": "Bool"})",
           R"({"val": {"int_val": 1}, "val_type": "Int", "extra": 1})",
       }) {
    const std::string text = program_with_values(values);
    auto from_text = table_from_json_text(text, *program_schema().root);
    auto from_stream = read_stream(stream_of(text));
    ASSERT_FALSE(from_text.ok()) << values;
    ASSERT_FALSE(from_stream.ok()) << values;
    EXPECT_EQ(from_stream.error().code, from_text.error().code) << values;
    EXPECT_EQ(from_stream.error().message, from_text.error().message) << values;
  }
}

TEST(ValueStream, DoublesAreExactAndIntegersChecked) {
  // A DoubleList of NaN (with payload bits), -0, ±Infinity and 0.1.
  const double nan_bits = [] {
    uint64_t bits = 0x7ff4000000000abcULL;
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }();
  const std::string head = stream_of(program_with_values(R"({"val": {"items": [7]}, "val_type": "DoubleList"})"));
  // The list's one INT32 element (7) is replaced by five doubles.
  StreamBuilder seven;
  seven.int32(7);
  const size_t at = head.find(seven.bytes().substr(4));
  ASSERT_NE(at, std::string::npos);
  StreamBuilder doubles;
  for (double d : {nan_bits, -0.0, double(INFINITY), -double(INFINITY), 0.1}) doubles.real(d);
  const std::string stream = head.substr(0, at) + doubles.bytes().substr(4) + head.substr(at + 5);
  auto program = read_stream(stream);
  ASSERT_TRUE(program.ok()) << program.error().message;
  const Blob& raw = program->get("execution_plan").items()[0].table().get("values").items()[0].table().get("val").table().get("items").scalars();
  ASSERT_EQ(raw.size(), 40u);
  EXPECT_EQ(read_le<uint64_t>(raw.data()), 0x7ff4000000000abcULL);
  EXPECT_EQ(read_le<uint64_t>(raw.data() + 8), 0x8000000000000000ULL);
  EXPECT_EQ(read_le<uint64_t>(raw.data() + 16), 0x7ff0000000000000ULL);
  EXPECT_EQ(read_le<uint64_t>(raw.data() + 24), 0xfff0000000000000ULL);

  // Integers: a safe Number beyond int32 is exact; one beyond 2^53 is
  // refused naming the path; a BigInt's digits are exact.
  auto with_int = [&](auto write) {
    const std::string base = stream_of(program_with_values(R"({"val": {"int_val": 7}, "val_type": "Int"})"));
    const size_t i = base.find(seven.bytes().substr(4));
    StreamBuilder v;
    write(v);
    return read_stream(base.substr(0, i) + v.bytes().substr(4) + base.substr(i + 5));
  };
  auto int_of = [](const Result<TableValue>& p) {
    return p->get("execution_plan").items()[0].table().get("values").items()[0].table().get("val").table().get_int("int_val");
  };
  auto safe = with_int([](StreamBuilder& v) { v.real(9007199254740991.0); });
  ASSERT_TRUE(safe.ok());
  EXPECT_EQ(int_of(safe), 9007199254740991LL);
  auto big = with_int([](StreamBuilder& v) { v.text(StreamTag::kString, "-9223372036854775808"); });
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(int_of(big), INT64_MIN);
  auto unsafe = with_int([](StreamBuilder& v) { v.real(1152921504606846976.0); });
  ASSERT_FALSE(unsafe.ok());
  EXPECT_EQ(unsafe.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(unsafe.error().message.find("execution_plan[0].values[0].val.int_val: the Number 1152921504606846976"), std::string::npos)
      << unsafe.error().message;
  auto nan = with_int([](StreamBuilder& v) { v.real(NAN); });
  ASSERT_FALSE(nan.ok());
  EXPECT_EQ(nan.error().code, ErrorCode::kSchemaMismatch);
}

TEST(ValueStream, BrokenStreamsAreRefusedNotOverread) {
  const std::string good = stream_of(program_with_values(
      R"({"val": {"int_val": 5}, "val_type": "Int"}, {"val": {"items": [1, 2]}, "val_type": "IntList"},)"
      R"({"val": {"scalar_type": 6, "sizes": [2, 2], "dim_order": [0, 1], "storage_offset": 0, "requires_grad": false,)"
      R"( "layout": 0, "data_buffer_idx": 0, "allocation_info": null, "shape_dynamism": 0}, "val_type": "Tensor"},)"
      R"({"val": {"double_val": 0.5}, "val_type": "Double"}, {"val": {"string_val": "s"}, "val_type": "String"})"));
  ASSERT_TRUE(read_stream(good).ok());
  // Every truncation, each in its own allocation so ASan sees a read past it.
  for (size_t n = 0; n < good.size(); ++n) {
    const std::string cut = good.substr(0, n);
    EXPECT_FALSE(read_stream(cut).ok()) << n;
  }
  EXPECT_FALSE(read_stream(good + '\x01').ok());
  // Bytes flipped at random: any outcome but a crash or an overread.
  std::mt19937 rng(13);
  for (int round = 0; round < 3000; ++round) {
    std::string bad = good;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) bad[rng() % bad.size()] = static_cast<char>(rng() % 4 == 0 ? 0xff : rng() % 16);
    auto r = read_stream(bad);
    if (!r.ok()) {
      EXPECT_FALSE(r.error().message.empty());
    }
  }
  // Lengths and key ids that claim more than there is.
  std::string undefined_key(kValueStreamMagic);
  undefined_key += static_cast<char>(StreamTag::kObject);
  undefined_key += static_cast<char>(StreamTag::kKey);
  append_le<uint32_t>(undefined_key, 0);
  EXPECT_FALSE(read_stream(undefined_key).ok());
  std::string huge(kValueStreamMagic);
  huge += static_cast<char>(StreamTag::kObject);
  huge += static_cast<char>(StreamTag::kKeyDef);
  append_le<uint32_t>(huge, 0);
  append_le<uint32_t>(huge, 0xfffffff0u);
  EXPECT_FALSE(read_stream(huge).ok());
  // Deep nesting stops at the reader's depth limit.
  std::string deep(kValueStreamMagic);
  deep += static_cast<char>(StreamTag::kObject);
  deep += static_cast<char>(StreamTag::kKeyDef);
  append_le<uint32_t>(deep, 0);
  append_le<uint32_t>(deep, 14);
  deep += "execution_plan";
  for (int i = 0; i < 100000; ++i) deep += static_cast<char>(StreamTag::kArray);
  EXPECT_FALSE(read_stream(deep).ok());
  EXPECT_FALSE(read_stream("").ok());
  EXPECT_FALSE(read_stream("ETV").ok());
}

}  // namespace
}  // namespace etpack
