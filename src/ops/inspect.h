// inspect: what a .pte or .ptd holds and where each byte goes (see
// read/inspect.h for the reply's shape).
#pragma once

#include "core/result.h"
#include "format/file_kinds.h"
#include "read/file_source.h"
#include "read/layout_json.h"

namespace etpack {

// Describes `file` as a file of `kind`. Errors: those of the kind's reader
// (kMalformedFile naming the offset, kUnsupportedVersion, kResourceLimit).
Result<InspectReply> inspect_file(FileKind kind, const FileSource& file);

}  // namespace etpack
