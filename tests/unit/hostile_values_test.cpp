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
                               0x7ff4000000000001ull, 0xfff0000000000000ull, 0x0000000000000001ull};
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

// Upstream's Python builder omits a scalar field that compares equal to its
// default (`x != d` on Python floats, where -0.0 == 0.0), so a Double of -0.0
// is written exactly as +0.0 and as an absent value: a table with no fields.
// Byte parity comes first; list items and every other double stay exact.
TEST(HostileValues, NegativeZeroDoubleIsOmittedAsUpstreamWritesIt) {
  auto encode_double = [](const Value& v) {
    TableValue t(&table_def("Double"));
    if (!v.absent()) t.at("double_val") = v;
    auto fb = encode_flatbuffer(t, "ET12", {});
    EXPECT_TRUE(fb.ok());
    return fb.ok() ? fb->bytes : std::vector<uint8_t>{};
  };
  // root uoffset 12, "ET12", vtable {4 bytes, table of 4 bytes, no field},
  // then the table: its soffset (4) back to the vtable.
  const std::vector<uint8_t> empty = {12, 0, 0, 0, 'E', 'T', '1', '2', 4, 0, 4, 0, 4, 0, 0, 0};
  EXPECT_EQ(encode_double(Value()), empty);
  EXPECT_EQ(encode_double(Value::from_double(0.0)), empty);
  EXPECT_EQ(encode_double(Value::from_double(-0.0)), empty);
  // Any other value, NaN included, is written with its own bits: root
  // uoffset 20, "ET12", 6 bytes of padding (the double is 8-aligned), the
  // vtable {6 bytes, table of 12 bytes, field at 4}, the table's soffset (6),
  // the double.
  const std::vector<uint8_t> nan = {
      20, 0, 0, 0, 'E', 'T', '1', '2', 0, 0, 0, 0, 0, 0, 6, 0, 12, 0, 4, 0, 6, 0, 0, 0,
      0xef, 0xbe, 0xad, 0xde, 0, 0, 0xf8, 0x7f};
  EXPECT_EQ(encode_double(Value::from_double(from_bits(0x7ff80000deadbeefull))), nan);
  std::vector<uint8_t> five_e_minus_324 = nan;
  const uint8_t tiny[8] = {1, 0, 0, 0, 0, 0, 0, 0};
  std::copy(tiny, tiny + 8, five_e_minus_324.end() - 8);
  EXPECT_EQ(encode_double(Value::from_double(5e-324)), five_e_minus_324);

  // Read back, the omitted -0.0 is the default +0.0.
  TableValue d(&table_def("Double"));
  d.at("double_val") = Value::from_double(-0.0);
  auto fb = encode_flatbuffer(d, "ET12", {});
  ASSERT_TRUE(fb.ok());
  auto back = decode_flatbuffer(Blob::own(fb->bytes), table_def("Double"));
  ASSERT_TRUE(back.ok()) << back.error().message;
  const Value& got = back->get("double_val");
  EXPECT_TRUE(got.absent() || bits_of(got.scalar().d) == 0);

  // In a DoubleList every item is written, -0.0 keeping its sign bit.
  auto list = table_from_json_text("{\"items\": [-0.0, 0.0, NaN]}", table_def("DoubleList"));
  ASSERT_TRUE(list.ok()) << list.error().message;
  auto lfb = encode_flatbuffer(*list, "ET12", {});
  ASSERT_TRUE(lfb.ok());
  auto lback = decode_flatbuffer(Blob::own(lfb->bytes), table_def("DoubleList"));
  ASSERT_TRUE(lback.ok());
  const Blob& items = lback->get("items").scalars();
  ASSERT_EQ(items.size(), 24u);
  uint64_t first;
  std::memcpy(&first, items.data(), 8);
  EXPECT_EQ(first, 0x8000000000000000ull);
}

}  // namespace
}  // namespace etpack
