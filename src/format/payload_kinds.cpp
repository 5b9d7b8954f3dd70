#include "format/payload_kinds.h"

#include <cstring>

#include "core/le_bytes.h"

namespace etpack {
namespace {

constexpr PayloadKindInfo kRows[] = {
#define PAYLOAD_KIND(e, kind, backend, magic, magic_offset, identifier, layout) \
  {PayloadKind::e, kind, backend, std::string_view(magic, sizeof(magic) - 1), magic_offset, identifier, PayloadLayout::layout},
#include "format/payload_kinds.def"
#undef PAYLOAD_KIND
};

constexpr size_t kIdentifierOffset = 4;  // after a flatbuffer's root offset

Error malformed(const std::string& what, uint64_t offset) {
  return make_error(ErrorCode::kMalformedFile, what + " (at byte offset " + std::to_string(offset) + " of the payload)");
}

bool bytes_at(const uint8_t* blob, size_t size, size_t offset, std::string_view want) {
  return !want.empty() && offset <= size && want.size() <= size - offset &&
         std::memcmp(blob + offset, want.data(), want.size()) == 0;
}

// A bare XNNPACK flatbuffer may carry either identifier (the runtime takes
// XN00 and XN01 alike when there is no XH00 header).
bool identifier_matches(const PayloadKindInfo& row, const uint8_t* blob, size_t size) {
  if (bytes_at(blob, size, kIdentifierOffset, row.identifier)) return true;
  return row.kind == PayloadKind::kXnnpackLegacy &&
         bytes_at(blob, size, kIdentifierOffset, payload_kind(PayloadKind::kXnnpack).identifier);
}

// Core ML's in-memory filesystem has no magic: its last non-zero byte is
// the `{` that opens the byte-reversed JSON directory.
bool looks_like_inmemoryfs(const uint8_t* blob, size_t size) {
  while (size > 0 && blob[size - 1] == 0) --size;
  return size > 0 && blob[size - 1] == '{';
}

bool row_matches(const PayloadKindInfo& row, const uint8_t* blob, size_t size, bool by_backend) {
  if (!row.magic.empty()) return bytes_at(blob, size, row.magic_offset, row.magic);
  if (!row.identifier.empty()) return identifier_matches(row, blob, size);
  return by_backend || looks_like_inmemoryfs(blob, size);
}

std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
    } else {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out + "\"";
}

}  // namespace

const PayloadKindInfo& payload_kind(PayloadKind kind) { return kRows[static_cast<size_t>(kind)]; }

Result<std::optional<PayloadKind>> detect_payload_kind(const uint8_t* blob, size_t size, std::string_view backend) {
  const bool by_backend = !backend.empty();
  bool known = false;
  std::string expected;
  for (const PayloadKindInfo& row : kRows) {
    if (by_backend && row.backend_id != backend) continue;
    if (row_matches(row, blob, size, by_backend)) return std::optional<PayloadKind>(row.kind);
    known = true;
    if (!expected.empty()) expected += " or ";
    if (!row.magic.empty()) expected += quoted(row.magic) + " at byte " + std::to_string(row.magic_offset);
    else expected += "identifier " + quoted(row.identifier) + " at byte 4";
  }
  // Without the magic QNN's runtime reads the blob as a DLC: opaque here,
  // unless the blob stops inside the magic (a cut-short header).
  const PayloadKindInfo& qnn = payload_kind(PayloadKind::kQnn);
  if (by_backend && backend == qnn.backend_id && size < qnn.magic.size() &&
      (size == 0 || std::memcmp(blob, qnn.magic.data(), size) == 0))
    return malformed("QnnBackend payload of " + std::to_string(size) + " bytes ends inside its 4-byte magic", size);
  if (!by_backend || !known || backend == qnn.backend_id) return std::optional<PayloadKind>();
  return malformed(std::string(backend) + " payload of " + std::to_string(size) + " bytes: expected " + expected, 0);
}

Result<std::optional<WrapperHeader30>> parse_wrapper_header30(const uint8_t* blob, size_t size,
                                                              std::string_view magic) {
  if (!bytes_at(blob, size, WrapperHeader30::kMagicOffset, magic)) return std::optional<WrapperHeader30>();
  const std::string name(magic);
  if (size < WrapperHeader30::kLength)
    return malformed(name + " header needs " + std::to_string(WrapperHeader30::kLength) + " bytes; the payload has " +
                         std::to_string(size),
                     size);
  WrapperHeader30 h;
  h.magic = name;
  h.header_length = read_le<uint16_t>(blob + 8);
  h.flatbuffer_offset = read_le<uint32_t>(blob + 10);
  h.flatbuffer_size = read_le<uint32_t>(blob + 14);
  h.data_offset = read_le<uint32_t>(blob + 18);
  h.data_size = read_le<uint64_t>(blob + 22);
  if (h.header_length < WrapperHeader30::kLength)
    return malformed(name + " header_length " + std::to_string(h.header_length) + " is below " +
                         std::to_string(WrapperHeader30::kLength),
                     8);
  if (h.flatbuffer_offset > size || h.flatbuffer_size > size - h.flatbuffer_offset)
    return malformed(name + " flatbuffer_offset " + std::to_string(h.flatbuffer_offset) + " + flatbuffer_size " +
                         std::to_string(h.flatbuffer_size) + " runs past the " + std::to_string(size) +
                         "-byte payload",
                     10);
  if (h.data_offset > size || h.data_size > size - h.data_offset)
    return malformed(name + " data offset " + std::to_string(h.data_offset) + " + size " + std::to_string(h.data_size) +
                         " runs past the " + std::to_string(size) + "-byte payload",
                     18);
  return std::optional<WrapperHeader30>(std::move(h));
}

Result<std::optional<WrapperHeader24>> parse_wrapper_header24(const uint8_t* blob, size_t size,
                                                              std::string_view magic) {
  if (!bytes_at(blob, size, WrapperHeader30::kMagicOffset, magic)) return std::optional<WrapperHeader24>();
  const std::string name(magic);
  if (size < WrapperHeader24::kLength)
    return malformed(name + " header needs " + std::to_string(WrapperHeader24::kLength) + " bytes; the payload has " +
                         std::to_string(size),
                     size);
  WrapperHeader24 h;
  h.magic = name;
  h.data_segment_offset = read_le<uint64_t>(blob + 8);
  h.data_segment_size = read_le<uint64_t>(blob + 16);
  if (h.data_segment_offset < WrapperHeader24::kLength || h.data_segment_offset > size ||
      h.data_segment_size > size - h.data_segment_offset)
    return malformed(name + " data_segment_offset " + std::to_string(h.data_segment_offset) + " + data_segment_size " +
                         std::to_string(h.data_segment_size) + " does not lie within bytes 24.." +
                         std::to_string(size) + " of the payload",
                     8);
  return std::optional<WrapperHeader24>(std::move(h));
}

}  // namespace etpack
