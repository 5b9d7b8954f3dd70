// Doubles survive every path of the core bit for bit: program JSON text in
// (upstream's spellings: bare NaN/Infinity/-Infinity tokens, "-0.0", and the
// "inf"/"-inf" strings of exir/schema.py's Double), program JSON text out,
// and flatbuffer decode -> encode (where a NaN keeps its payload bits).
// Strings that only look like numbers are refused, not guessed at.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "core/json.h"
#include "encode/fb_encoder.h"
#include "model/value_json.h"
#include "read/fb_decoder.h"
#include "schema/schema.h"

namespace etpack {
namespace {

uint64_t bits_of(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}
double from_bits(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}

const TableDef& table_def(const char* name) { return *program_schema().find_table(name); }

Result<TableValue> read_double(const std::string& token) {
  return table_from_json_text("{\"double_val\": " + token + "}", table_def("Double"));
}

TEST(HostileValues, DoubleFieldAcceptsPythonTokensBitForBit) {
  struct Case {
    const char* text;
    uint64_t bits;
  } cases[] = {
      {"NaN", 0x7ff8000000000000ull},        {"Infinity", 0x7ff0000000000000ull},
      {"-Infinity", 0xfff0000000000000ull},  {"\"inf\"", 0x7ff0000000000000ull},
      {"\"-inf\"", 0xfff0000000000000ull},   {"-0.0", 0x8000000000000000ull},
      {"-0", 0x8000000000000000ull},         {"0.0", 0},
      {"5e-324", 1},                         {"1.7976931348623157e+308", 0x7fefffffffffffffull},
  };
  for (const Case& c : cases) {
    auto t = read_double(c.text);
    ASSERT_TRUE(t.ok()) << c.text << ": " << t.error().message;
    EXPECT_EQ(bits_of(t->get("double_val").scalar().d), c.bits) << c.text;
  }
}

TEST(HostileValues, NumberLookalikeStringsAreSchemaErrors) {
  for (const char* s : {"\"nan\"", "\"NaN\"", "\"Infinity\"", "\"-Infinity\"", "\"1.5\"", "\"INF\"", "\"\""}) {
    auto t = read_double(s);
    ASSERT_FALSE(t.ok()) << s;
    EXPECT_EQ(t.error().code, ErrorCode::kSchemaMismatch) << s;
    EXPECT_NE(t.error().message.find("double_val"), std::string::npos) << t.error().message;
  }
  // Integer fields never take the non-finite tokens.
  auto i = table_from_json_text("{\"int_val\": NaN}", table_def("Int"));
  ASSERT_FALSE(i.ok());
  EXPECT_EQ(i.error().code, ErrorCode::kSchemaMismatch);
}

TEST(HostileValues, WrittenJsonUsesUpstreamSpellings) {
  auto write_double = [](double d) {
    TableValue t(&table_def("Double"));
    t.at("double_val") = Value::from_double(d);
    return write_json(table_to_json(t));
  };
  EXPECT_EQ(write_double(std::numeric_limits<double>::quiet_NaN()), "{\"double_val\": NaN}");
  EXPECT_EQ(write_double(std::numeric_limits<double>::infinity()), "{\"double_val\": \"inf\"}");
  EXPECT_EQ(write_double(-std::numeric_limits<double>::infinity()), "{\"double_val\": \"-inf\"}");
  EXPECT_EQ(write_double(-0.0), "{\"double_val\": -0.0}");
  EXPECT_EQ(write_double(0.1), "{\"double_val\": 0.1}");

  // In a DoubleList json.dumps writes the bare tokens.
  const char* list = "{\"items\": [NaN, Infinity, -Infinity, -0.0, 0.0, 1e-05, 1e+16]}";
  auto t = table_from_json_text(list, table_def("DoubleList"));
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(write_json(table_to_json(*t)), list);
}

TEST(HostileValues, JsonDocumentKeepsTokensAndNegativeZero) {
  const char* text = "[NaN, Infinity, -Infinity, -0.0, 0.0]";
  auto doc = parse_json(text);
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(write_json(*doc), text);
  EXPECT_TRUE(std::isnan(*doc->items()[0].as_double()));
  EXPECT_EQ(bits_of(*doc->items()[3].as_double()), 0x8000000000000000ull);
  EXPECT_EQ(write_json(Json::real(-0.0)), "-0.0");
  EXPECT_EQ(write_json(Json::real(-std::numeric_limits<double>::infinity())), "-Infinity");
}

TEST(HostileValues, NanPayloadSurvivesDecodeAndEncode) {
  const uint64_t payloads[] = {0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff80000deadbeefull,
                               0x7ff4000000000001ull, 0x8000000000000000ull};
  for (uint64_t bits : payloads) {
    TableValue value(&table_def("EValue"));
    TableValue d(&table_def("Double"));
    d.at("double_val") = Value::from_double(from_bits(bits));
    value.at("val") = Value::from_table(std::move(d));
    value.at("val_type") = Value::from_uint(static_cast<uint64_t>(table_def("EValue").fields[1].union_def->type_of("Double")));
    TableValue plan(&table_def("ExecutionPlan"));
    Value::Items values;
    values.push_back(Value::from_table(std::move(value)));
    plan.at("values") = Value::from_items(std::move(values));
    TableValue program(program_schema().root);
    Value::Items plans;
    plans.push_back(Value::from_table(std::move(plan)));
    program.at("execution_plan") = Value::from_items(std::move(plans));

    auto fb = encode_flatbuffer(program, "ET12", {});
    ASSERT_TRUE(fb.ok());
    auto decoded = decode_flatbuffer(Blob::own(fb->bytes), *program_schema().root);
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    const Value& v = decoded->get("execution_plan").items()[0].table().get("values").items()[0].table().get("val");
    EXPECT_EQ(bits_of(v.table().get("double_val").scalar().d), bits) << std::hex << bits;
    auto again = encode_flatbuffer(*decoded, "ET12", {});
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->bytes, fb->bytes);
  }
}

}  // namespace
}  // namespace etpack
