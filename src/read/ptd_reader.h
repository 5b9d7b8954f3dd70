// Reads a .ptd (FlatTensor) file back into a DataPayload: one buffer per
// segment, named data entries with alignment 1 (a file does not record the
// requested alignment) and their tensor layouts. Untrusted input: every
// header field, offset and size is checked.
#pragma once

#include "core/blob.h"
#include "core/result.h"
#include "encode/ptd_writer.h"
#include "format/headers.h"

namespace etpack {

struct PtdFile {
  PtdHeader header;
  DataPayload payload;  // buffers are slices of the input file (no copies)
};

// Errors: kMalformedFile (naming the offset), kUnsupportedVersion (another
// FTxx identifier, or a FlatTensor version other than 0).
Result<PtdFile> deserialize_ptd(const Blob& file);

}  // namespace etpack
