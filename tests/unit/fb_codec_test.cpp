// The encoder's two policies and the decoder, on hand-built tables whose
// expected bytes were worked out from the builders' rules.
#include <gtest/gtest.h>

#include "core/le_bytes.h"
#include "encode/fb_encoder.h"
#include "model/value_json.h"
#include "read/fb_decoder.h"
#include "schema/schema.h"

namespace etpack {
namespace {

const TableDef& program_table(const char* name) { return *program_schema().find_table(name); }

TableValue data_segment(uint64_t offset, uint64_t size) {
  TableValue t(&program_table("DataSegment"));
  t.set_uint("offset", offset);
  t.set_uint("size", size);
  return t;
}

TEST(Schema, LoadsBothSchemasWithDeclarationOrder) {
  const Schema& p = program_schema();
  ASSERT_NE(p.root, nullptr);
  EXPECT_EQ(p.root->name, "Program");
  EXPECT_EQ(p.file_identifier, "ET12");
  const TableDef* tensor = p.find_table("Tensor");
  ASSERT_NE(tensor, nullptr);
  EXPECT_EQ(tensor->fields[0].name, "scalar_type");
  EXPECT_EQ(tensor->fields[7].name, "layout");
  EXPECT_EQ(p.find_table("Buffer")->fields[0].force_align, 16u);
  EXPECT_EQ(flat_tensor_schema().file_identifier, "FT01");
  EXPECT_EQ(flat_tensor_schema().root->name, "FlatTensor");
}

TEST(Encoder, ReferencePolicySharesVtablesByFieldOffsetsOnly) {
  // Two DataSegments with identical field layouts share one vtable.
  TableValue program(program_schema().root);
  Value::Items segments;
  segments.push_back(Value::from_table(data_segment(1, 2)));
  segments.push_back(Value::from_table(data_segment(3, 4)));
  program.at("segments") = Value::from_items(std::move(segments));
  auto fb = encode_flatbuffer(program, "ET12", {});
  ASSERT_TRUE(fb.ok());
  auto decoded = decode_flatbuffer(Blob::own(fb->bytes), *program_schema().root);
  ASSERT_TRUE(decoded.ok()) << decoded.error().message;
  const auto& items = decoded->get("segments").items();
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[1].table().get_uint("offset"), 3u);
  EXPECT_EQ(items[1].table().get_uint("size"), 4u);
  // Both DataSegment tables must point at the same vtable.
  const uint8_t* b = fb->bytes.data();
  auto vtable_of = [&](uint32_t table) { return table - static_cast<int32_t>(read_le<uint32_t>(b + table)); };
  auto follow = [&](uint32_t at) { return at + read_le<uint32_t>(b + at); };
  uint32_t root = read_le<uint32_t>(b);
  uint32_t field = root + read_le<uint16_t>(b + vtable_of(root) + 4 + 2 * 4);  // slot 4: segments
  uint32_t vec = follow(field);
  EXPECT_EQ(vtable_of(follow(vec + 4)), vtable_of(follow(vec + 8)));
}

TEST(Encoder, SkipsDefaultScalarsAndKeepsEmptyVectors) {
  TableValue program(program_schema().root);
  program.set_uint("version", 0);                  // default: not written
  program.at("segments") = Value::from_items({});  // present and empty: written
  auto fb = encode_flatbuffer(program, "ET12", {});
  ASSERT_TRUE(fb.ok());
  auto decoded = decode_flatbuffer(Blob::own(fb->bytes), *program_schema().root);
  ASSERT_TRUE(decoded.ok());
  EXPECT_TRUE(decoded->get("segments").is_items());
  EXPECT_TRUE(decoded->get("named_data").absent());
  EXPECT_EQ(std::string(fb->bytes.begin() + 4, fb->bytes.begin() + 8), "ET12");
}

TEST(Encoder, ForceAlignOverrideAlignsByteVectors) {
  for (uint32_t align : {16u, 64u, 256u}) {
    TableValue buffer(&program_table("Buffer"));
    buffer.at("storage") = Value::from_scalars(Blob::own({1, 2, 3}));
    TableValue program(program_schema().root);
    Value::Items list;
    list.push_back(Value::from_table(buffer));
    program.at("constant_buffer") = Value::from_items(std::move(list));
    EncodeOptions options;
    options.force_align_overrides = {{"Buffer.storage", align}};
    auto fb = encode_flatbuffer(program, "ET12", options);
    ASSERT_TRUE(fb.ok());
    EXPECT_EQ(fb->max_alignment, align);
    EXPECT_EQ(fb->bytes.size() % align, 0u);
    // Find the 3 payload bytes: they must start at an aligned offset.
    size_t pos = 0;
    for (size_t i = 0; i + 3 <= fb->bytes.size(); ++i)
      if (fb->bytes[i] == 1 && fb->bytes[i + 1] == 2 && fb->bytes[i + 2] == 3) pos = i;
    EXPECT_EQ(pos % align, 0u) << "alignment " << align;
  }
}

TEST(Encoder, RejectsNonPowerOfTwoForceAlign) {
  TableValue program(program_schema().root);
  EncodeOptions options;
  options.force_align_overrides = {{"Buffer.storage", 48}};
  auto fb = encode_flatbuffer(program, "ET12", options);
  ASSERT_FALSE(fb.ok());
  EXPECT_EQ(fb.error().code, ErrorCode::kInvalidAlignment);
}

TEST(Encoder, FlatcPolicyOrdersFieldsLargestFirst) {
  // DataSegment{offset: u64, size: u64}: flatc adds size (declared last)
  // first, so `size` lies at the lower table offset... in a back-to-front
  // buffer the first-added field ends up last in memory.
  const TableDef& seg = *flat_tensor_schema().find_table("DataSegment");
  TableValue t(&seg);
  t.set_uint("offset", 0x1111);
  t.set_uint("size", 0x2222);
  TableValue root(flat_tensor_schema().root);
  Value::Items list;
  list.push_back(Value::from_table(t));
  root.at("segments") = Value::from_items(std::move(list));
  EncodeOptions flatc;
  flatc.policy = EncodePolicy::kFlatcJson;
  auto a = encode_flatbuffer(root, "FT01", flatc);
  auto b = encode_flatbuffer(root, "FT01", {});
  ASSERT_TRUE(a.ok() && b.ok());
  auto find = [](const std::vector<uint8_t>& bytes, uint16_t v) {
    for (size_t i = 0; i + 2 <= bytes.size(); ++i)
      if (read_le<uint16_t>(bytes.data() + i) == v) return i;
    return size_t{0};
  };
  // flatc: offset (added last) is at the lower address; Python: size is.
  EXPECT_LT(find(a->bytes, 0x1111), find(a->bytes, 0x2222));
  EXPECT_GT(find(b->bytes, 0x1111), find(b->bytes, 0x2222));
}

TEST(Decoder, RejectsTruncationWithOffsets) {
  TableValue program(program_schema().root);
  program.at("segments") = Value::from_items({});
  auto fb = encode_flatbuffer(program, "ET12", {});
  ASSERT_TRUE(fb.ok());
  for (size_t n = 0; n < fb->bytes.size(); ++n) {
    std::vector<uint8_t> cut(fb->bytes.begin(), fb->bytes.begin() + static_cast<std::ptrdiff_t>(n));
    auto d = decode_flatbuffer(Blob::own(cut), *program_schema().root);
    EXPECT_FALSE(d.ok()) << "length " << n;
    if (!d.ok()) {
      EXPECT_EQ(d.error().code, ErrorCode::kMalformedFile);
      EXPECT_NE(d.error().message.find("byte offset"), std::string::npos);
    }
  }
}

TEST(Decoder, ZeroOffsetPointingAtItselfIsRejected) {
  // uoffsets only point forward, so the only self-reference is offset 0: the
  // root offset names byte 0 as the root table, whose "vtable" is garbage.
  std::vector<uint8_t> buf(16, 0);
  std::memcpy(buf.data() + 4, "ET12", 4);
  auto d = decode_flatbuffer(Blob::own(buf), *program_schema().root);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code, ErrorCode::kMalformedFile);
}

TEST(Decoder, SharedSubtablesCannotAmplify) {
  // A vector of 100k offsets all pointing at one table: bounded work.
  const uint32_t n = 100000;
  std::vector<uint8_t> buf;
  auto put32 = [&](uint32_t v) { size_t at = buf.size(); buf.resize(at + 4); write_le<uint32_t>(buf.data() + at, v); };
  // layout: [root off][ET12][vtable prog (4+2*2=8)][prog table][vector][vtable seg][seg table]
  put32(0);
  buf.insert(buf.end(), {'E', 'T', '1', '2'});
  size_t vt_prog = buf.size();  // 8
  buf.resize(buf.size() + 8);
  write_le<uint16_t>(buf.data() + vt_prog, 8);
  write_le<uint16_t>(buf.data() + vt_prog + 2, 8);
  write_le<uint16_t>(buf.data() + vt_prog + 4, 0);
  write_le<uint16_t>(buf.data() + vt_prog + 6, 4);  // slot 1: execution_plan
  size_t prog = buf.size();  // 16
  write_le<uint32_t>(buf.data(), static_cast<uint32_t>(prog));
  put32(static_cast<uint32_t>(prog - vt_prog));
  put32(4);  // execution_plan vector right after (at prog+8)
  size_t vec = buf.size();
  put32(n);
  size_t elems = buf.size();
  buf.resize(buf.size() + 4 * n);
  size_t vt_plan = buf.size();
  buf.resize(buf.size() + 4);
  write_le<uint16_t>(buf.data() + vt_plan, 4);
  write_le<uint16_t>(buf.data() + vt_plan + 2, 4);
  size_t plan = buf.size();
  put32(static_cast<uint32_t>(plan - vt_plan));
  for (uint32_t i = 0; i < n; ++i) {
    size_t at = elems + 4 * i;
    write_le<uint32_t>(buf.data() + at, static_cast<uint32_t>(plan - at));
  }
  (void)vec;
  auto d = decode_flatbuffer(Blob::own(buf), *program_schema().root);
  // Either decodes within budget or stops with a limit; never unbounded.
  if (!d.ok()) {
    EXPECT_EQ(d.error().code, ErrorCode::kResourceLimit);
  }
}

TEST(ValueJson, RejectsUnknownFieldsAndOutOfRangeIntegers) {
  auto j = parse_json(R"({"version": 0, "bogus": 1})");
  auto t = table_from_json(*j, *program_schema().root);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, ErrorCode::kSchemaMismatch);
  EXPECT_NE(t.error().message.find("bogus"), std::string::npos);

  auto k = parse_json(R"({"version": 4294967296})");
  auto u = table_from_json(*k, *program_schema().root);
  ASSERT_FALSE(u.ok());
  EXPECT_NE(u.error().message.find("version"), std::string::npos);
}

TEST(ValueJson, AcceptsDigitStringsAndWritesBigIntMarkers) {
  auto j = parse_json(R"({"execution_plan": [{"values": [{"val": {"int_val": "-9223372036854775808"}, "val_type": "Int"}]}]})");
  auto t = table_from_json(*j, *program_schema().root);
  ASSERT_TRUE(t.ok()) << t.error().message;
  ToJsonOptions markers;
  markers.js_bigint_markers = true;
  std::string text = write_json(table_to_json(*t, markers));
  EXPECT_NE(text.find("\"\\u0000-9223372036854775808\""), std::string::npos) << text;
  std::string plain = write_json(table_to_json(*t));
  EXPECT_NE(plain.find("-9223372036854775808"), std::string::npos);
  EXPECT_EQ(plain.find("\\u0000"), std::string::npos);
}

}  // namespace
}  // namespace etpack
