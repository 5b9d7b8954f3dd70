// The checks repack runs before reading its inputs and before returning its
// outputs, with our validator (validate/validate.h): the runtime's rules live
// there, so a repack output that validates clean loads.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"
#include "core/cord.h"
#include "format/file_source.h"
#include "validate/validate.h"

namespace etpack {

// Validates the .pte with its data files and the merged .ptd files.
// Errors other than the ones repack handles itself (the missing
// placeholder, EXTERNAL tensors not found or unresolved, a delegate's
// named-data key in no file) give kInvalidInput; `findings`
// receives them.
Status check_inputs(const FileSource& pte, const std::vector<std::pair<std::string, FileSource>>& data,
                    const std::vector<FileSource>& merge, std::vector<Finding>& findings);

// Validates the written .pte with every written .ptd (named "<tag>.ptd").
// `allowed_missing_paths`: tensors and delegates whose keys were allowed to
// be missing (an EXTERNAL_TENSOR_NOT_FOUND or DELEGATE_NAMED_KEY_MISSING
// there is expected). Errors give kInvalidOutput.
Status check_outputs(const Cord& pte, const std::vector<std::pair<std::string, Cord>>& ptds,
                     const std::set<std::string>& allowed_missing_paths, std::vector<Finding>& findings);

// A written file as validate reads it: its head (header and flatbuffer,
// owned metadata: a slice of the first piece, or a copy of the few head
// bytes when they span pieces) and its size. Segment data is never read.
Result<FileSource> output_source(const Cord& cord, bool ptd);

}  // namespace etpack
