// inspect: what a .pte or .ptd holds and where each byte goes (see
// inspect/inspect.h for the reply's shape).
#pragma once

#include "core/result.h"
#include "format/file_kinds.h"
#include "read/file_source.h"
#include "inspect/layout_json.h"

namespace etpack {

// Describes `file` as a file of `kind`. Errors: those of the kind's reader
// (kMalformedFile naming the offset, kUnsupportedVersion, kResourceLimit).
// `data_files`: .ptd files a .pte is loaded with (its method allocator
// figures count the data map they cost; ignored for a .ptd).
Result<InspectReply> inspect_file(FileKind kind, const FileSource& file, size_t data_files = 0);

}  // namespace etpack
