// The two extended headers inserted after a flatbuffer's first 8 bytes (root
// offset + file identifier). Keep in sync with upstream
// schema/extended_header.{h,cpp} (eh00) and
// extension/flat_tensor/serialize/flat_tensor_header.{h,cpp} (FH01).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "format/file_kinds.h"

namespace etpack {

// Offset of both headers in the file: after root offset + identifier.
constexpr size_t kHeaderOffset = file_kind(FileKind::kPte).header_offset;
static_assert(kHeaderOffset == file_kind(FileKind::kPtd).header_offset, "both headers sit at one offset");

struct PteHeader {
  static constexpr const char* kMagic = file_kind(FileKind::kPte).header_magic.data();
  // How messages name the header: by its magic.
  static std::string name() { return header_magic_of(FileKind::kPte); }
  static constexpr uint32_t kLength = 32;         // what we write
  static constexpr uint32_t kMinimumLength = 24;  // without segment_data_size
  uint32_t length = kLength;
  uint64_t program_size = 0;         // flatbuffer size including this header
  uint64_t segment_base_offset = 0;  // where segment 0's offsets count from
  uint64_t segment_data_size = 0;    // 0 when the header is only 24 bytes
};

struct PtdHeader {
  static constexpr const char* kMagic = file_kind(FileKind::kPtd).header_magic.data();
  static std::string name() { return header_magic_of(FileKind::kPtd); }
  static constexpr uint32_t kLength = 40;
  static constexpr uint32_t kPaddedLength = 48;  // inserted size, = flatbuffer_offset
  uint32_t length = kLength;
  uint64_t flatbuffer_offset = kPaddedLength;
  uint64_t flatbuffer_size = 0;  // without the header
  uint64_t segment_base_offset = 0;
  uint64_t segment_data_size = 0;
};

// Serialized header bytes, zero-padded to `padded_length`.
std::vector<uint8_t> encode_pte_header(const PteHeader& h, size_t padded_length);
std::vector<uint8_t> encode_ptd_header(const PtdHeader& h);

// A header as its bytes stand, for a judge that names each problem
// (validate): how far the fields go, and those read. `size` is the file's
// size; `data` holds at least min(size, kHeaderOffset + 40) bytes (all
// either scan reads). The runtime (ExtendedHeader::Parse,
// FlatTensorHeader::Parse) accepts any length from the minimum up and reads
// only the fields it knows.
enum class HeaderScan : uint8_t {
  kAbsent,          // no magic at kHeaderOffset (or too few bytes to hold one)
  kNoLength,        // the magic, then the bytes end before the length field
  kLengthTooSmall,  // header.length is below the minimum
  kTruncated,       // the bytes end inside the fields header.length claims
  kComplete,        // every field the runtime reads is in header
};
template <typename Header>
struct ScannedHeader {
  HeaderScan scan = HeaderScan::kAbsent;
  Header header;  // fields past where the scan stopped keep their defaults
  // kHeaderOffset + the bytes of the fields the runtime reads (at most the
  // known length): where a complete header's fields end.
  uint64_t fields_end() const { return kHeaderOffset + (header.length < Header::kLength ? header.length : Header::kLength); }
};
ScannedHeader<PteHeader> scan_pte_header(const uint8_t* data, uint64_t size);
ScannedHeader<PtdHeader> scan_ptd_header(const uint8_t* data, uint64_t size);

// Reads the header at kHeaderOffset. nullopt means "no such header here" (the
// magic differs, or the file is too short to hold one); an error means the
// magic is there but the header is corrupt.
Result<std::optional<PteHeader>> parse_pte_header(const uint8_t* data, size_t size);
Result<std::optional<PtdHeader>> parse_ptd_header(const uint8_t* data, size_t size);

// Returns a copy of `flatbuffer` with `header` inserted after its first 8
// bytes and the root offset moved by header.size(). This copies the
// flatbuffer (metadata, not weights): it is the price of upstream's layout.
std::vector<uint8_t> insert_header(const std::vector<uint8_t>& flatbuffer, const std::vector<uint8_t>& header);

}  // namespace etpack
