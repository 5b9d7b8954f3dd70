#include "ops/deserialize.h"

#include <optional>

namespace etpack {

Result<uint64_t> head_bytes(FileKind kind, const Blob& probe, uint64_t file_size, bool lenient) {
  // A switch without default: a new row in format/file_kinds.def warns
  // (-Wswitch) until its reader's head size is named here.
  Result<uint64_t> head = make_error(ErrorCode::kInvalidArgument, "no reader for this file kind");
  switch (kind) {
    case FileKind::kPte:
      head = pte_head_size(probe, file_size);
      break;
    case FileKind::kPtd:
      head = ptd_head_size(probe, file_size);
      break;
    case FileKind::kBpte:
      head = file_size;  // one flatbuffer, read whole
      break;
    case FileKind::kEtdp:  // the whole flatbuffer: 4 + its size prefix
      head = etdump_head_size(probe, file_size);
      break;
  }
  if (!head.ok() && !lenient) return head.error();
  return head_bytes_to_read(head.ok() ? std::optional<uint64_t>(*head) : std::nullopt, file_size);
}

Result<PteProgramBytes> deserialize_pte_file(const FileSource& file) {
  return read_pte_program_bytes(file.head, file.file);
}

Result<PtdFile> deserialize_ptd_file(const FileSource& file) { return deserialize_ptd(file.head, file.file); }

}  // namespace etpack
