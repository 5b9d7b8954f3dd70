// validate: the runtime's verdict on a set of files. The main file decides
// what is checked: a .pte with the .ptd files it uses, or (when its
// identifier is a .ptd's) every file as a .ptd on its own.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/result.h"
#include "read/file_source.h"
#include "validate/validate.h"

namespace etpack {

// `main_name` names the main file in a .ptd-only report. Never fails on
// the files' contents (those are findings); errors are resource limits.
Result<ValidationReport> validate_files(const std::string& main_name, const FileSource& main,
                                        const std::vector<std::pair<std::string, FileSource>>& ptds,
                                        const ValidateOptions& options);

}  // namespace etpack
