#include "ops/validate.h"

#include <algorithm>

#include "format/file_kinds.h"
#include "ops/file_kind_ops.h"
#include "read/requirements.h"

namespace etpack {

Result<ValidationReport> validate_files(const std::string& main_name, const FileSource& main,
                                        const std::vector<std::pair<std::string, FileSource>>& ptds,
                                        const ValidateOptions& options) {
  const Blob& head = main.head;
  const size_t probed = static_cast<size_t>(std::min<uint64_t>(head.size(), kIdentifierEnd));
  // A file of no kind, or of a kind validate has no judge for, is judged as
  // a program: its identifier check says what it is instead.
  const std::optional<FileKind> kind = file_kind_of(head.data(), probed);
  const FileKindOps& ops = ops_of(kind && ops_of(*kind).validate ? *kind : FileKind::kPte);
  return ops.validate(main_name, main, ptds, options);
}

std::optional<std::pair<int, int>> parse_runtime_release(const std::string& text) {
  const std::optional<Release> release = parse_release(text);
  if (!release) return std::nullopt;
  return std::make_pair(release->major, release->minor);
}

}  // namespace etpack
