// The safetensors reader's strictness (as the reference reader) and the
// writer's header, byte for byte.
#include <gtest/gtest.h>

#include <deque>

#include <string>

#include "encode/safetensors_writer.h"
#include "read/safetensors_reader.h"

namespace etpack {
namespace {

// A whole file: 8-byte length, `header`, then `data_bytes` bytes.
std::string file_of(const std::string& header, size_t data_bytes) {
  std::string f(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i, n >>= 8) f[static_cast<size_t>(i)] = static_cast<char>(n & 0xFF);
  return f + header + std::string(data_bytes, 'x');
}

Result<SafetensorsHeader> read(const std::string& header, size_t data_bytes) {
  // Kept for the test's life: a header's names view its text.
  static std::deque<std::string> files;
  const std::string& f = files.emplace_back(file_of(header, data_bytes));
  auto n = safetensors_header_size(f, f.size(), "t.safetensors");
  if (!n.ok()) return n.take_error();
  return read_safetensors_header(std::string_view(f).substr(8, *n), f.size(), "t.safetensors");
}

ErrorCode code_of(const std::string& header, size_t data_bytes) {
  auto r = read(header, data_bytes);
  return r.ok() ? ErrorCode::kOk : r.error().code;
}

TEST(Safetensors, ReadsTensorsMetadataAndOffsets) {
  auto r = read(R"({"__metadata__":{"format":"pt"},"b":{"dtype":"F16","shape":[2],"data_offsets":[16,20]},"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}}  )", 20);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->tensors.size(), 2u);
  EXPECT_EQ(r->tensors[0].name, "b");
  EXPECT_EQ(r->tensors[0].scalar_type, std::optional<int8_t>(5));
  EXPECT_EQ(r->tensors[1].begin, 0u);
  EXPECT_EQ(r->tensors[1].end, 16u);
  EXPECT_EQ(r->metadata.size(), 1u);
  EXPECT_EQ(r->data_start, 8u + r->header_size);
}

TEST(Safetensors, RefusesWhatTheReferenceRefuses) {
  const std::string ok = R"("dtype":"U8","shape":[4])";
  // A hole: bytes [4, 8) belong to no tensor.
  EXPECT_EQ(code_of(R"({"a":{)" + ok + R"(,"data_offsets":[0,4]},"b":{)" + ok + R"(,"data_offsets":[8,12]}})", 12), ErrorCode::kSafetensorsOffsets);
  // Overlap.
  EXPECT_EQ(code_of(R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]},"b":{)" + ok + R"(,"data_offsets":[4,8]}})", 8), ErrorCode::kSafetensorsOverlap);
  // Trailing bytes after the last tensor.
  EXPECT_EQ(code_of(R"({"a":{)" + ok + R"(,"data_offsets":[0,4]}})", 5), ErrorCode::kSafetensorsOffsets);
  // A UTF-8 BOM, and leading whitespace.
  EXPECT_EQ(code_of("\xEF\xBB\xBF{}", 0), ErrorCode::kSafetensorsHeader);
  EXPECT_EQ(code_of(" {}", 0), ErrorCode::kSafetensorsHeader);
  // Offsets that are not JSON integers.
  EXPECT_EQ(code_of(R"({"a":{)" + ok + R"(,"data_offsets":[0,4.0]}})", 4), ErrorCode::kSafetensorsOffsets);
  EXPECT_EQ(code_of(R"({"a":{)" + ok + R"(,"data_offsets":[0,4e0]}})", 4), ErrorCode::kSafetensorsOffsets);
  EXPECT_EQ(code_of(R"({"a":{"dtype":"U8","shape":[4.0],"data_offsets":[0,4]}})", 4), ErrorCode::kSafetensorsShape);
  EXPECT_EQ(code_of(R"({"a":{"dtype":"U8","shape":[-4],"data_offsets":[0,4]}})", 4), ErrorCode::kSafetensorsShape);
  // Duplicate keys, at the top and inside a tensor.
  EXPECT_EQ(code_of(R"({"a":{)" + ok + R"(,"data_offsets":[0,4]},"a":{)" + ok + R"(,"data_offsets":[0,4]}})", 4), ErrorCode::kSafetensorsHeader);
  EXPECT_EQ(code_of(R"({"a":{"dtype":"U8","dtype":"U8","shape":[4],"data_offsets":[0,4]}})", 4), ErrorCode::kSafetensorsHeader);
  // Shape and byte count disagree; unknown dtype; missing field; a lone surrogate.
  EXPECT_EQ(code_of(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,4]}})", 4), ErrorCode::kSafetensorsShape);
  EXPECT_EQ(code_of(R"({"a":{"dtype":"F33","shape":[4],"data_offsets":[0,4]}})", 4), ErrorCode::kSafetensorsHeader);
  EXPECT_EQ(code_of(R"({"a":{"dtype":"U8","shape":[4]}})", 4), ErrorCode::kSafetensorsHeader);
  EXPECT_EQ(code_of(R"({"\ud800":{)" + ok + R"(,"data_offsets":[0,4]}})", 4), ErrorCode::kSafetensorsHeader);
  // A shape whose element count overflows 64 bits.
  EXPECT_EQ(code_of(R"({"a":{"dtype":"U8","shape":[4294967296,4294967296,4],"data_offsets":[0,4]}})", 4), ErrorCode::kSafetensorsShape);
  // Metadata values must be strings; bytes after the object.
  EXPECT_EQ(code_of(R"({"__metadata__":{"n":1}})", 0), ErrorCode::kSafetensorsHeader);
  EXPECT_EQ(code_of(R"({} x)", 0), ErrorCode::kSafetensorsHeader);
}

TEST(Safetensors, BadLengthsAreCoded) {
  std::string short_file("\x01\x00", 2);
  EXPECT_EQ(safetensors_header_size(short_file, 2, "f").error().code, ErrorCode::kSafetensorsTruncated);
  std::string f = file_of("{}", 0);
  f[0] = 9;  // 9 header bytes in a file that has 2
  EXPECT_EQ(safetensors_header_size(f, f.size(), "f").error().code, ErrorCode::kSafetensorsHeaderSize);
  std::string huge(8, '\xFF');
  auto e = safetensors_header_size(huge, 1ull << 40, "f");
  EXPECT_EQ(e.error().code, ErrorCode::kSafetensorsHeaderSize);
  EXPECT_NE(e.error().message.find("exceeds"), std::string::npos);
}

TEST(Safetensors, ErrorsNameTheTensorAndOffset) {
  auto r = read(R"({"w.0":{"dtype":"F32","shape":[4],"data_offsets":[0,4]}})", 4);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("\"w.0\""), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("offset"), std::string::npos) << r.error().message;
}

TEST(Safetensors, EscapedNamesNeverHoldReplacementCharacters) {
  EXPECT_EQ(escaped_name("a\"b"), "\"a\\\"b\"");
  EXPECT_EQ(escaped_name("\xED\xA0\x80"), "\"\\ud800\"");  // a lone surrogate's bytes
  EXPECT_EQ(escaped_name("\xFF"), "\"\\xff\"");
  EXPECT_EQ(escaped_name("\xC3\xA9"), "\"\xC3\xA9\"");
}

TEST(Safetensors, WriterHeaderIsCompactPaddedAndReadsBack) {
  auto head = safetensors_head({{"w", "F32", {2, 2}, 16}, {"b", "F16", {3}, 6}}, {{"format", "pt"}});
  ASSERT_TRUE(head.ok());
  const std::string json = R"({"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},"b":{"dtype":"F16","shape":[3],"data_offsets":[16,22]}})";
  ASSERT_EQ(head->size() % 8, 0u);
  EXPECT_EQ(head->substr(8, json.size()), json);
  EXPECT_EQ(head->find_first_not_of(' ', 8 + json.size()), std::string::npos);
  EXPECT_EQ(static_cast<uint8_t>((*head)[0]), head->size() - 8);
  const std::string f = *head + std::string(22, 'x');
  auto back = read_safetensors_header(std::string_view(f).substr(8, head->size() - 8), f.size(), "f");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->tensors[1].begin, 16u);
  EXPECT_EQ(safetensors_head({{"w", "U8", {1}, 1}, {"w", "U8", {1}, 1}}, {}).error().code, ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace etpack
