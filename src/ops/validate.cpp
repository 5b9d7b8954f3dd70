#include "ops/validate.h"

#include <algorithm>

#include "format/file_kinds.h"
#include "ops/bundled_program.h"
#include "read/requirements.h"

namespace etpack {

Result<ValidationReport> validate_files(const std::string& main_name, const FileSource& main,
                                        const std::vector<std::pair<std::string, FileSource>>& ptds,
                                        const ValidateOptions& options) {
  const Blob& head = main.head;
  const size_t probed = static_cast<size_t>(std::min<uint64_t>(head.size(), kIdentifierEnd));
  const std::optional<FileKind> kind = file_kind_of(head.data(), probed);
  if (kind == FileKind::kBpte) return validate_bundled_program(main, ptds, options);
  if (kind != FileKind::kPtd) return validate_artifacts(main, ptds, options);
  ETP_ASSIGN(ValidationReport report, validate_ptd(main_name, main));
  for (const auto& [name, file] : ptds) {
    ETP_ASSIGN(ValidationReport one, validate_ptd(name, file));
    report.errors.insert(report.errors.end(), one.errors.begin(), one.errors.end());
    report.warnings.insert(report.warnings.end(), one.warnings.begin(), one.warnings.end());
  }
  return report;
}

std::optional<std::pair<int, int>> parse_runtime_release(const std::string& text) {
  const std::optional<Release> release = parse_release(text);
  if (!release) return std::nullopt;
  return std::make_pair(release->major, release->minor);
}

}  // namespace etpack
