#include "ops/inspect.h"

#include "ops/file_kind_ops.h"

namespace etpack {

Result<InspectReply> inspect_file(FileKind kind, const FileSource& file, size_t data_files) {
  const FileKindOps& ops = ops_of(kind);
  if (ops.inspect == nullptr) return make_error(ErrorCode::kInvalidArgument, "no inspector for this file kind");
  return ops.inspect(file, data_files);
}

}  // namespace etpack
