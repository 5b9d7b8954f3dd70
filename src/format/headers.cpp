#include "format/headers.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

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

namespace {

// The magic and the length field: kAbsent, kNoLength, or the length read
// (the scan's other states are for each header to decide).
template <typename Header>
bool scan_length(const uint8_t* data, uint64_t size, ScannedHeader<Header>& out) {
  if (size < kHeaderOffset + 4 || std::memcmp(data + kHeaderOffset, Header::kMagic, 4) != 0) {
    out.scan = HeaderScan::kAbsent;
    return false;
  }
  if (size < kHeaderOffset + 8) {
    out.scan = HeaderScan::kNoLength;
    return false;
  }
  out.header.length = read_le<uint32_t>(data + kHeaderOffset + 4);
  return true;
}

// The header's fields when the magic, a length of at least `minimum` and
// every byte up to its fields' end are there; otherwise nullptr, with
// out.scan saying which was missing.
template <typename Header>
const uint8_t* scan_fields(const uint8_t* data, uint64_t size, uint32_t minimum, ScannedHeader<Header>& out) {
  if (!scan_length(data, size, out)) return nullptr;
  if (out.header.length < minimum) {
    out.scan = HeaderScan::kLengthTooSmall;
    return nullptr;
  }
  if (size < out.fields_end()) {
    out.scan = HeaderScan::kTruncated;
    return nullptr;
  }
  out.scan = HeaderScan::kComplete;
  return data + kHeaderOffset;
}

}  // namespace

ScannedHeader<PteHeader> scan_pte_header(const uint8_t* data, uint64_t size) {
  ScannedHeader<PteHeader> out;
  const uint8_t* p = scan_fields(data, size, PteHeader::kMinimumLength, out);
  if (p == nullptr) return out;
  PteHeader& h = out.header;
  h.program_size = read_le<uint64_t>(p + 8);
  h.segment_base_offset = read_le<uint64_t>(p + 16);
  if (h.length >= PteHeader::kLength) h.segment_data_size = read_le<uint64_t>(p + 24);
  return out;
}

ScannedHeader<PtdHeader> scan_ptd_header(const uint8_t* data, uint64_t size) {
  ScannedHeader<PtdHeader> out;
  const uint8_t* p = scan_fields(data, size, PtdHeader::kLength, out);
  if (p == nullptr) return out;
  PtdHeader& h = out.header;
  h.flatbuffer_offset = read_le<uint64_t>(p + 8);
  h.flatbuffer_size = read_le<uint64_t>(p + 16);
  h.segment_base_offset = read_le<uint64_t>(p + 24);
  h.segment_data_size = read_le<uint64_t>(p + 32);
  return out;
}

namespace {

// The strict reading of a scan: no header, a header, or why it is corrupt.
template <typename Header>
Result<std::optional<Header>> parsed(const ScannedHeader<Header>& s, uint64_t size) {
  switch (s.scan) {
    case HeaderScan::kAbsent:
    case HeaderScan::kNoLength: return std::optional<Header>();
    case HeaderScan::kLengthTooSmall: {
      const uint32_t minimum = std::is_same<Header, PteHeader>::value ? PteHeader::kMinimumLength : PtdHeader::kLength;
      return make_error(ErrorCode::kMalformedFile, Header::name() + " header length " + std::to_string(s.header.length) +
                                                       " is below the minimum " + std::to_string(minimum) +
                                                       " (at byte offset 12)");
    }
    case HeaderScan::kTruncated:
      return make_error(ErrorCode::kMalformedFile,
                        "file of " + std::to_string(size) + " bytes ends inside the " + Header::name() + " header");
    case HeaderScan::kComplete: break;
  }
  return std::optional<Header>(s.header);
}

}  // namespace

Result<std::optional<PteHeader>> parse_pte_header(const uint8_t* data, size_t size) {
  return parsed(scan_pte_header(data, size), size);
}

Result<std::optional<PtdHeader>> parse_ptd_header(const uint8_t* data, size_t size) {
  return parsed(scan_ptd_header(data, size), size);
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
