// The .ptd's entry in the file-kind table (ops/file_kind_ops.h).
#include "inspect/inspect.h"
#include "ops/file_kind_ops.h"
#include "read/ptd_reader.h"
#include "validate/validate.h"

namespace etpack {

namespace {

// A .ptd as the main file: it and every other file given, each as a .ptd
// on its own, in one report.
Result<ValidationReport> validate_ptds(const std::string& main_name, const FileSource& main,
                                       const DataFileSources& data_files, const ValidateOptions&) {
  ETP_ASSIGN(ValidationReport report, validate_ptd(main_name, main));
  for (const auto& [name, file] : data_files) {
    ETP_ASSIGN(ValidationReport one, validate_ptd(name, file));
    report.errors.insert(report.errors.end(), one.errors.begin(), one.errors.end());
    report.warnings.insert(report.warnings.end(), one.warnings.begin(), one.warnings.end());
  }
  return report;
}

}  // namespace

const FileKindOps kPtdOps = {
    ptd_head_size,
    [](const FileSource& file, size_t) { return inspect_ptd_reply(file); },
    validate_ptds,
};

}  // namespace etpack
