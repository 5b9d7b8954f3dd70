#include "read/ptd_table.h"

#include <string>

#include "core/checked_math.h"
#include "read/verified_decode.h"

namespace etpack {

Result<PtdHead> check_ptd_head(const Blob& first_bytes, uint64_t file_size) {
  auto malformed = [](const std::string& what) { return make_error(ErrorCode::kMalformedFile, what); };
  if (first_bytes.is_external()) return make_error(ErrorCode::kInvalidArgument, "the .ptd head must be in memory");
  const size_t size = static_cast<size_t>(first_bytes.size());
  ETP_TRY(check_identifier(FileKind::kPtd, first_bytes.data(), size, file_size));
  ETP_ASSIGN(auto header, parse_ptd_header(first_bytes.data(), size));
  if (!header) return malformed("missing " + PtdHeader::name() + " header (at byte offset " + std::to_string(kHeaderOffset) + ")");
  auto fb_end = checked_add(header->flatbuffer_offset, header->flatbuffer_size);
  if (header->flatbuffer_offset < kHeaderOffset + PtdHeader::kLength || !fb_end || *fb_end > file_size)
    return malformed(PtdHeader::name() + " flatbuffer range (offset " + std::to_string(header->flatbuffer_offset) +
                     ", size " + std::to_string(header->flatbuffer_size) + ") is outside the file of " +
                     std::to_string(file_size) + " bytes (at byte offset 16)");
  return PtdHead{*header, *fb_end};
}

Result<PtdTable> read_ptd_table(const Blob& file) { return read_ptd_table(file, file.size()); }

Result<PtdTable> read_ptd_table(const Blob& head, uint64_t file_size) {
  if (head.is_external() || head.size() < std::min(file_size, kMinimumHeadBytes) || head.size() > file_size)
    return make_error(ErrorCode::kInvalidArgument, "the .ptd head must be in memory and hold the file's first " +
                                                       std::to_string(std::min(file_size, kMinimumHeadBytes)) + " bytes");
  ETP_ASSIGN(PtdHead checked, check_ptd_head(head, file_size));
  const uint64_t fb_end = checked.flatbuffer_end;
  if (fb_end > head.size())
    return make_error(ErrorCode::kInvalidArgument, "the .ptd head (" + std::to_string(head.size()) +
                                                       " bytes) ends before the flatbuffer (" + std::to_string(fb_end) + ")");
  PtdTable out;
  out.header = checked.header;
  out.flatbuffer_end = fb_end;
  ETP_ASSIGN(out.root, decode_verified_flat_tensor(head.slice(0, fb_end)));
  return out;
}

}  // namespace etpack
