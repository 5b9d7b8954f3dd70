// The program reader's fast paths give the same model and the same errors as
// a plain read: union values before their `_type` (read at once as the
// member the field held last, else skipped and read later), keys matched
// in the text (escaped keys still decoded), and scalar lists cut from shared
// chunks.
#include <gtest/gtest.h>

#include <string>

#include "model/value_json.h"
#include "schema/schema.h"

namespace etpack {
namespace {

// A program whose only plan has `values` (JSON text of the list).
std::string program_with_values(const std::string& values) {
  return R"({"version": 0, "execution_plan": [{"name": "forward", "values": [)" + values +
         R"(], "inputs": [], "outputs": [], "chains": [], "operators": [], "delegates": [], "non_const_buffer_sizes": []}],)"
         R"( "constant_buffer": [], "backend_delegate_data": [], "segments": []})";
}

const TableValue& value_at(const TableValue& program, size_t i) {
  return program.get("execution_plan").items()[0].table().get("values").items()[i].table();
}

Result<TableValue> read(const std::string& text) { return table_from_json_text(text, *program_schema().root); }

TEST(JsonReaderPaths, UnionMembersChangeWhileValuesComeFirst) {
  // Int, Int, then lists whose text fits IntList and DoubleList alike: the
  // guess (the last member) must give way to the type that follows.
  auto program = read(program_with_values(
      R"({"val": {"int_val": 5}, "val_type": "Int"}, {"val": {"int_val": -7}, "val_type": "Int"},)"
      R"( {"val": {"items": [1, 2]}, "val_type": "IntList"}, {"val": {"items": [1, 2]}, "val_type": "DoubleList"},)"
      R"( {"val": {"items": [3]}, "val_type": "DoubleList"}, {"val_type": "Int", "val": {"int_val": 9}})"));
  ASSERT_TRUE(program.ok()) << program.error().message;
  const UnionDef& evalue = *program_schema().find_table("EValue")->fields[1].union_def;
  auto member = [&](size_t i) { return evalue.members[value_at(*program, i).get_uint("val_type")]->name; };
  EXPECT_EQ(member(0), "Int");
  EXPECT_EQ(value_at(*program, 1).get("val").table().get_int("int_val"), -7);
  EXPECT_EQ(member(2), "IntList");
  EXPECT_EQ(member(3), "DoubleList");
  EXPECT_EQ(member(4), "DoubleList");
  const Value& doubles = value_at(*program, 4).get("val").table().get("items");
  ASSERT_EQ(scalar_vector_length(doubles, BaseType::kDouble), 1u);
  EXPECT_EQ(get_scalar(doubles.scalars().data(), BaseType::kDouble).d, 3.0);
  EXPECT_EQ(value_at(*program, 5).get("val").table().get_int("int_val"), 9);
  const Value& ints = value_at(*program, 2).get("val").table().get("items");
  ASSERT_EQ(scalar_vector_length(ints, BaseType::kLong), 2u);
  EXPECT_EQ(scalar_vector_int(ints, BaseType::kLong, 1), 2);
}

TEST(JsonReaderPaths, ErrorsInsideAGuessedValueNameTheirPath) {
  // The third value fails as the guessed Int and as what it claims to be.
  auto bad = read(program_with_values(
      R"({"val": {"int_val": 1}, "val_type": "Int"}, {"val": {"int_val": 2}, "val_type": "Int"},)"
      R"( {"val": {"int_val": 1.5}, "val_type": "Int"})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kSchemaMismatch);
  EXPECT_NE(bad.error().message.find("execution_plan[0].values[2].val.int_val"), std::string::npos) << bad.error().message;

  // A Tensor field where the guess (Int) has none: the value's real type.
  auto tensor = read(program_with_values(
      R"({"val": {"int_val": 1}, "val_type": "Int"}, {"val": {"scalar_type": 6, "sizes": [2, "x"]}, "val_type": "Tensor"})"));
  ASSERT_FALSE(tensor.ok());
  EXPECT_EQ(tensor.error().code, ErrorCode::kSchemaMismatch);
  EXPECT_NE(tensor.error().message.find("execution_plan[0].values[1].val.sizes[1]"), std::string::npos) << tensor.error().message;

  // Broken JSON inside a guessed value: kInvalidJson at the same offset a
  // skip reports.
  const std::string text = program_with_values(R"({"val": {"int_val": 1}, "val_type": "Int"}, {"val": {"int_val": 1,}, "val_type": "Int"})");
  auto syntax = read(text);
  ASSERT_FALSE(syntax.ok());
  EXPECT_EQ(syntax.error().code, ErrorCode::kInvalidJson);
  const size_t comma = text.find("1,}");
  EXPECT_NE(syntax.error().message.find("at offset " + std::to_string(comma + 2)), std::string::npos) << syntax.error().message;
}

TEST(JsonReaderPaths, EscapedAndUnknownKeys) {
  // "\u0076al" is "val": decoded, then found.
  auto escaped = read(program_with_values(R"({"\u0076al": {"int_val": 4}, "val_type": "Int"})"));
  ASSERT_TRUE(escaped.ok()) << escaped.error().message;
  EXPECT_EQ(value_at(*escaped, 0).get("val").table().get_int("int_val"), 4);
  // A prefix or an extension of a field name is no field.
  for (const char* key : {"va", "vall", "val_typ"}) {
    auto bad = read(program_with_values(std::string(R"({")") + key + R"(": 1, "val_type": "Int"})"));
    ASSERT_FALSE(bad.ok()) << key;
    EXPECT_EQ(bad.error().code, ErrorCode::kSchemaMismatch);
    EXPECT_NE(bad.error().message.find(std::string("no field '") + key + "' in table EValue"), std::string::npos) << bad.error().message;
    EXPECT_NE(bad.error().message.find("execution_plan[0].values[0]." + std::string(key)), std::string::npos) << bad.error().message;
  }
}

TEST(JsonReaderPaths, ManyScalarListsKeepTheirBytes) {
  // Enough lists to fill several chunks, one larger than a chunk's share.
  std::string values;
  const size_t n = 3000;
  for (size_t i = 0; i < n; ++i) {
    values += (i ? ", " : "") + std::string(R"({"val": {"items": [)") + std::to_string(i) + ", " + std::to_string(i * 3) +
              R"(]}, "val_type": "IntList"})";
  }
  std::string big;
  for (size_t i = 0; i < 2000; ++i) big += (i ? ", " : "") + std::to_string(i);
  values += R"(, {"val": {"items": [)" + big + R"(]}, "val_type": "IntList"})";
  auto program = read(program_with_values(values));
  ASSERT_TRUE(program.ok()) << program.error().message;
  for (size_t i = 0; i < n; ++i) {
    const Value& items = value_at(*program, i).get("val").table().get("items");
    ASSERT_EQ(scalar_vector_length(items, BaseType::kLong), 2u);
    EXPECT_EQ(scalar_vector_int(items, BaseType::kLong, 0), static_cast<int64_t>(i));
    EXPECT_EQ(scalar_vector_int(items, BaseType::kLong, 1), static_cast<int64_t>(i * 3));
  }
  const Value& last = value_at(*program, n).get("val").table().get("items");
  ASSERT_EQ(scalar_vector_length(last, BaseType::kLong), 2000u);
  EXPECT_EQ(scalar_vector_int(last, BaseType::kLong, 1999), 1999);
}

}  // namespace
}  // namespace etpack
