#include "format/headers.h"

#include <cstring>
#include <string>

#include "core/le_bytes.h"

namespace etpack {

std::vector<uint8_t> encode_pte_header(const PteHeader& h, size_t padded_length) {
  std::vector<uint8_t> out(padded_length < 32 ? 32 : padded_length, 0);
  std::memcpy(out.data(), PteHeader::kMagic, 4);
  write_le<uint32_t>(out.data() + 4, PteHeader::kLength);
  write_le<uint64_t>(out.data() + 8, h.program_size);
  write_le<uint64_t>(out.data() + 16, h.segment_base_offset);
  write_le<uint64_t>(out.data() + 24, h.segment_data_size);
  return out;
}

std::vector<uint8_t> encode_ptd_header(const PtdHeader& h) {
  std::vector<uint8_t> out(PtdHeader::kPaddedLength, 0);
  std::memcpy(out.data(), PtdHeader::kMagic, 4);
  write_le<uint32_t>(out.data() + 4, PtdHeader::kLength);
  write_le<uint64_t>(out.data() + 8, h.flatbuffer_offset);
  write_le<uint64_t>(out.data() + 16, h.flatbuffer_size);
  write_le<uint64_t>(out.data() + 24, h.segment_base_offset);
  write_le<uint64_t>(out.data() + 32, h.segment_data_size);
  return out;
}

Result<std::optional<PteHeader>> parse_pte_header(const uint8_t* data, size_t size) {
  if (size < kHeaderOffset + 8 || std::memcmp(data + kHeaderOffset, PteHeader::kMagic, 4) != 0)
    return std::optional<PteHeader>();
  const uint8_t* p = data + kHeaderOffset;
  PteHeader h;
  h.length = read_le<uint32_t>(p + 4);
  if (h.length < PteHeader::kMinimumLength)
    return make_error(ErrorCode::kMalformedFile, "eh00 header length " + std::to_string(h.length) +
                                                     " is below the minimum 24 (at byte offset 12)");
  if (size < kHeaderOffset + PteHeader::kMinimumLength)
    return make_error(ErrorCode::kMalformedFile, "file of " + std::to_string(size) + " bytes ends inside the eh00 header");
  h.program_size = read_le<uint64_t>(p + 8);
  h.segment_base_offset = read_le<uint64_t>(p + 16);
  if (h.length >= PteHeader::kLength) {
    if (size < kHeaderOffset + PteHeader::kLength)
      return make_error(ErrorCode::kMalformedFile, "file of " + std::to_string(size) + " bytes ends inside the eh00 header");
    h.segment_data_size = read_le<uint64_t>(p + 24);
  }
  return std::optional<PteHeader>(h);
}

Result<std::optional<PtdHeader>> parse_ptd_header(const uint8_t* data, size_t size) {
  if (size < kHeaderOffset + 8 || std::memcmp(data + kHeaderOffset, PtdHeader::kMagic, 4) != 0)
    return std::optional<PtdHeader>();
  const uint8_t* p = data + kHeaderOffset;
  PtdHeader h;
  h.length = read_le<uint32_t>(p + 4);
  if (h.length < PtdHeader::kLength)
    return make_error(ErrorCode::kMalformedFile, "FH01 header length " + std::to_string(h.length) +
                                                     " is below the minimum 40 (at byte offset 12)");
  if (size < kHeaderOffset + PtdHeader::kLength)
    return make_error(ErrorCode::kMalformedFile, "file of " + std::to_string(size) + " bytes ends inside the FH01 header");
  h.flatbuffer_offset = read_le<uint64_t>(p + 8);
  h.flatbuffer_size = read_le<uint64_t>(p + 16);
  h.segment_base_offset = read_le<uint64_t>(p + 24);
  h.segment_data_size = read_le<uint64_t>(p + 32);
  return std::optional<PtdHeader>(h);
}

std::vector<uint8_t> insert_header(const std::vector<uint8_t>& flatbuffer, const std::vector<uint8_t>& header) {
  // Sized once and filled with memcpy: the root offset and identifier (the
  // first 8 bytes; fewer only for a buffer too short to be a flatbuffer,
  // which is then copied as is), the header, then the rest, shifted.
  const size_t head = flatbuffer.size() < 8 ? flatbuffer.size() : 8;
  std::vector<uint8_t> out(flatbuffer.size() + header.size());
  uint8_t* dst = out.data();
  if (head > 0) std::memcpy(dst, flatbuffer.data(), head);
  if (!header.empty()) std::memcpy(dst + head, header.data(), header.size());
  if (flatbuffer.size() > head) std::memcpy(dst + head + header.size(), flatbuffer.data() + head, flatbuffer.size() - head);
  if (head == 8) write_le<uint32_t>(dst, read_le<uint32_t>(flatbuffer.data()) + static_cast<uint32_t>(header.size()));
  return out;
}

}  // namespace etpack
