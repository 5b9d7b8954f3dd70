#include "ops/file_kind_ops.h"

namespace etpack {

const FileKindOps& ops_of(FileKind kind) {
  static const FileKindOps* const kTable[] = {
#define FILE_KIND(id, ...) &id##Ops,
#include "format/file_kinds.def"
#undef FILE_KIND
  };
  static_assert(sizeof(kTable) / sizeof(kTable[0]) == sizeof(kFileKinds) / sizeof(kFileKinds[0]),
                "one entry per row of format/file_kinds.def");
  return *kTable[static_cast<size_t>(kind)];
}

}  // namespace etpack
