#include "ops/deserialize.h"

#include <optional>

#include "ops/file_kind_ops.h"

namespace etpack {

Result<uint64_t> head_bytes(FileKind kind, const Blob& probe, uint64_t file_size, bool lenient) {
  Result<uint64_t> head = ops_of(kind).head_size(probe, file_size);
  if (!head.ok() && !lenient) return head.error();
  return head_bytes_to_read(head.ok() ? std::optional<uint64_t>(*head) : std::nullopt, file_size);
}

Result<PteProgramBytes> deserialize_pte_file(const FileSource& file) {
  return read_pte_program_bytes(file.head, file.file);
}

Result<PtdFile> deserialize_ptd_file(const FileSource& file) { return deserialize_ptd(file.head, file.file); }

}  // namespace etpack
