#include "read/ptd_table.h"

#include <cstring>
#include <string>

#include "core/checked_math.h"
#include "read/verified_decode.h"

namespace etpack {

Result<PtdTable> read_ptd_table(const Blob& file) { return read_ptd_table(file, file.size()); }

Result<PtdTable> read_ptd_table(const Blob& head, uint64_t file_size) {
  auto malformed = [](const std::string& what) { return make_error(ErrorCode::kMalformedFile, what); };
  if (head.is_external() || head.size() < std::min(file_size, kMinimumHeadBytes) || head.size() > file_size)
    return make_error(ErrorCode::kInvalidArgument, "the .ptd head must be in memory and hold the file's first " +
                                                       std::to_string(std::min(file_size, kMinimumHeadBytes)) + " bytes");
  if (file_size < 8)
    return malformed("file is " + std::to_string(file_size) + " bytes; a .ptd needs at least 8 (at byte offset 0)");
  const uint8_t* id = head.data() + 4;
  if (std::memcmp(id, "FT01", 4) != 0) {
    if (id[0] == 'F' && id[1] == 'T')
      return make_error(ErrorCode::kUnsupportedVersion, "data file identifier is not the supported 'FT01' (at byte offset 4)");
    return malformed("not a .ptd file: identifier != 'FT01' (at byte offset 4)");
  }
  ETP_ASSIGN(auto header, parse_ptd_header(head.data(), head.size()));
  if (!header) return malformed("missing FH01 header (at byte offset 8)");
  PtdTable out;
  out.header = *header;
  auto fb_end = checked_add(header->flatbuffer_offset, header->flatbuffer_size);
  if (header->flatbuffer_offset < kHeaderOffset + PtdHeader::kLength || !fb_end || *fb_end > file_size)
    return malformed("FH01 flatbuffer range (offset " + std::to_string(header->flatbuffer_offset) + ", size " +
                     std::to_string(header->flatbuffer_size) + ") is outside the file of " +
                     std::to_string(file_size) + " bytes (at byte offset 16)");
  if (*fb_end > head.size())
    return make_error(ErrorCode::kInvalidArgument, "the .ptd head (" + std::to_string(head.size()) +
                                                       " bytes) ends before the flatbuffer (" + std::to_string(*fb_end) + ")");
  out.flatbuffer_end = *fb_end;
  ETP_ASSIGN(out.root, decode_verified_flat_tensor(head.slice(0, *fb_end)));
  return out;
}

}  // namespace etpack
