// Reads a .ptd (FlatTensor) file back into a DataPayload: one buffer per
// segment, named data entries with alignment 1 (a file does not record the
// requested alignment) and their tensor layouts. Untrusted input: every
// header field, offset and size is checked.
#pragma once

#include "core/blob.h"
#include "core/result.h"
#include "format/headers.h"
#include "model/data_payload.h"

namespace etpack {

struct PtdFile {
  PtdHeader header;
  DataPayload payload;  // buffers are slices of the input file (no copies)
};

// Errors: kMalformedFile (naming the offset), kUnsupportedVersion (another
// FTxx identifier, or a FlatTensor version other than 0).
Result<PtdFile> deserialize_ptd(const Blob& file);

// For files whose bytes stay elsewhere: `head` holds at least the header and
// flatbuffer in memory (see ptd_head_size); segment data is sliced from
// `file`, which may be external.
Result<PtdFile> deserialize_ptd(const Blob& head, const Blob& file);
constexpr uint64_t kPtdProbeBytes = file_kind(FileKind::kPtd).probe_bytes;
Result<uint64_t> ptd_head_size(const Blob& first_bytes, uint64_t file_size);

}  // namespace etpack
