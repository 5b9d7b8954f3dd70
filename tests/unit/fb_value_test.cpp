// Value, the model's tagged union: every kind survives copy and move with
// its contents, assignment from a Value inside the assigned one is safe, and
// a copied tree shares its tables until one side writes (copy-on-write).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "model/fb_value.h"
#include "schema/schema.h"

namespace etpack {
namespace {

const TableDef& data_segment_def() { return *program_schema().find_table("DataSegment"); }

TableValue data_segment(uint64_t offset) {
  TableValue t(&data_segment_def());
  t.set_uint("offset", offset);
  return t;
}

uint64_t bits_of(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}

TEST(Value, ScalarsKeepTheirBitsThroughCopyAndMove) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double d : {nan, -0.0, std::numeric_limits<double>::infinity(), 1.5}) {
    Value v = Value::from_double(d);
    Value copy(v);
    Value moved(std::move(v));
    EXPECT_EQ(bits_of(copy.scalar().d), bits_of(d));
    EXPECT_EQ(bits_of(moved.scalar().d), bits_of(d));
  }
  Value big = Value::from_int(std::numeric_limits<int64_t>::min());
  Value other;
  other = big;
  EXPECT_EQ(other.scalar().i, std::numeric_limits<int64_t>::min());
  EXPECT_TRUE(Value().absent());
  EXPECT_TRUE(Value(Value()).absent());
}

TEST(Value, OwnedKindsCopyAndMoveWithTheirContents) {
  Value s = Value::from_string(std::string(100, 'x'));  // past any short-string buffer
  Value s2 = s;
  Value s3 = std::move(s);
  EXPECT_EQ(s2.str(), std::string(100, 'x'));
  EXPECT_EQ(s3.str(), std::string(100, 'x'));

  Value::Items items;
  items.push_back(Value::from_string("a"));
  items.push_back(Value::from_int(7));
  items.push_back(Value::from_table(data_segment(64)));
  Value list = Value::from_items(std::move(items));
  Value list2;
  list2 = list;
  ASSERT_TRUE(list2.is_items());
  ASSERT_EQ(list2.items().size(), 3u);
  EXPECT_EQ(list2.items()[0].str(), "a");
  EXPECT_EQ(list2.items()[1].scalar().i, 7);
  EXPECT_EQ(list2.items()[2].table().get_uint("offset"), 64u);

  const uint8_t raw[] = {1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0};
  Value scalars = Value::from_scalars(Blob::own(std::vector<uint8_t>(raw, raw + sizeof raw)));
  Value scalars2;
  scalars2 = std::move(scalars);
  EXPECT_EQ(scalar_vector_length(scalars2, BaseType::kULong), 2u);
  EXPECT_EQ(scalar_vector_uint(scalars2, BaseType::kULong, 1), 2u);
}

TEST(Value, AssigningAValueFromInsideItselfIsSafe) {
  Value::Items items;
  items.push_back(Value::from_string(std::string(50, 'y')));
  items.push_back(Value::from_int(3));
  Value list = Value::from_items(items);
  list = list.items()[0];  // copy of an element, then the list released
  EXPECT_EQ(list.str(), std::string(50, 'y'));

  Value list2 = Value::from_items(items);
  list2 = std::move(list2.items()[1]);  // a plain element, moved out
  EXPECT_EQ(list2.scalar().i, 3);

  Value list3 = Value::from_items(items);
  list3 = std::move(list3.items()[0]);  // an owned element, moved out
  EXPECT_EQ(list3.str(), std::string(50, 'y'));

  Value self = Value::from_string("z");
  Value& alias = self;
  self = alias;
  self = std::move(alias);
  EXPECT_EQ(self.str(), "z");
}

TEST(Value, CopiedTablesAreSharedUntilWritten) {
  Value a = Value::from_table(data_segment(16));
  Value b = a;
  EXPECT_EQ(&std::as_const(a).table(), &std::as_const(b).table());
  b.table().set_uint("offset", 32);  // unshares b
  EXPECT_EQ(std::as_const(a).table().get_uint("offset"), 16u);
  EXPECT_EQ(std::as_const(b).table().get_uint("offset"), 32u);
  EXPECT_NE(&std::as_const(a).table(), &std::as_const(b).table());
}

// A table's fields live inside it up to FieldSlots::kInline of them, on
// the heap past that: both kinds keep every field through copy, move and
// assignment, and the source of a move is left empty, not dangling.
TEST(TableValue, InlineAndHeapFieldsSurviveCopyAndMove) {
  for (const char* name : {"DataSegment", "Tensor"}) {
    const TableDef& def = *program_schema().find_table(name);
    const size_t n = def.fields.size();
    ASSERT_EQ(n <= FieldSlots::kInline, std::string(name) == "DataSegment") << name << " has " << n << " fields";
    TableValue t(&def);
    ASSERT_EQ(t.fields.size(), n);
    for (size_t i = 0; i < n; ++i) t.fields[i] = i % 2 ? Value::from_string(std::string(40, char('a' + i))) : Value::from_uint(i);
    auto expect_filled = [&](const TableValue& x) {
      ASSERT_EQ(x.fields.size(), n);
      for (size_t i = 0; i < n; ++i) {
        if (i % 2) EXPECT_EQ(x.fields[i].str(), std::string(40, char('a' + i))) << name << " field " << i;
        else EXPECT_EQ(x.fields[i].scalar().u, i) << name << " field " << i;
      }
    };
    TableValue copy = t;
    expect_filled(copy);
    TableValue moved = std::move(copy);
    expect_filled(moved);
    EXPECT_EQ(copy.fields.size(), 0u);  // NOLINT: the moved-from table is empty
    TableValue assigned(&data_segment_def());
    assigned = moved;
    expect_filled(assigned);
    assigned = std::move(moved);
    expect_filled(assigned);
    expect_filled(t);
  }
}

// Assigning an owned Value onto an absent or scalar one (filling a table's
// slots) takes it whole; onto an owned one, the old contents are released.
TEST(Value, OwnedValuesAssignedOntoScalarsAndOwnedOnes) {
  Value slot = Value::from_int(5);
  Value text = Value::from_string(std::string(60, 'q'));
  slot = text;
  EXPECT_EQ(slot.str(), std::string(60, 'q'));
  Value other = Value::from_uint(1);
  other = std::move(text);
  EXPECT_EQ(other.str(), std::string(60, 'q'));
  other = Value::from_table(data_segment(8));
  EXPECT_EQ(std::as_const(other).table().get_uint("offset"), 8u);
  other = slot;
  EXPECT_EQ(other.str(), std::string(60, 'q'));
}

// Vector elements widen by their own signedness: a [ubyte] dim_order entry
// of 200 reads 200 (it once read -56), the same bytes as [byte] read -56.
TEST(ScalarVector, UnsignedElementsAreNotSignExtended) {
  const Value bytes = Value::from_scalars(Blob::own({200, 7}));
  ASSERT_EQ(scalar_vector_length(bytes, BaseType::kUByte), 2u);
  EXPECT_EQ(scalar_vector_int(bytes, BaseType::kUByte, 0), 200);
  EXPECT_EQ(scalar_vector_int(bytes, BaseType::kUByte, 1), 7);
  EXPECT_EQ(scalar_vector_int(bytes, BaseType::kByte, 0), -56);
  EXPECT_EQ(scalar_vector_int(bytes, BaseType::kBool, 0), 200);
  const Value wide = Value::from_scalars(Blob::own({0xff, 0xff, 0xff, 0xff}));
  EXPECT_EQ(scalar_vector_int(wide, BaseType::kUShort, 1), 0xffff);
  EXPECT_EQ(scalar_vector_int(wide, BaseType::kShort, 1), -1);
  EXPECT_EQ(scalar_vector_int(wide, BaseType::kUInt, 0), int64_t{0xffffffff});
  EXPECT_EQ(scalar_vector_int(wide, BaseType::kInt, 0), -1);
}

}  // namespace
}  // namespace etpack
