// The FlatTensor table of a .ptd, decoded but not interpreted: what inspect
// and validate walk. Unlike deserialize_ptd, segments and named data are not
// checked here, so a file whose flatbuffer is sound can still be described
// and each of its problems reported.
#pragma once

#include "core/blob.h"
#include "read/file_source.h"
#include "core/result.h"
#include "format/headers.h"
#include "model/fb_value.h"

namespace etpack {

// The start of a .ptd, checked: the one identifier + header + flatbuffer
// range check that deserialize_ptd, ptd_head_size and read_ptd_table share.
struct PtdHead {
  PtdHeader header;
  uint64_t flatbuffer_end = 0;  // header.flatbuffer_offset + flatbuffer_size, checked <= file_size
};
// Reads the identifier (at format/file_kinds.def's offset) and the header
// from `first_bytes` (in memory; what is missing counts as absent).
// Errors: kMalformedFile (too short, another identifier, no header, a
// corrupt header, a flatbuffer range outside [header end, file_size]),
// kUnsupportedVersion (another FTxx identifier); each names the offset.
Result<PtdHead> check_ptd_head(const Blob& first_bytes, uint64_t file_size);

struct PtdTable {
  PtdHeader header;
  uint64_t flatbuffer_end = 0;  // header.flatbuffer_offset + flatbuffer_size, checked
  TableValue root{flat_tensor_schema().root};
};

// Checks the head (check_ptd_head): identifier, header, flatbuffer range,
// then decodes and verifies the flatbuffer. The version field is not
// checked. The tree's vectors are slices of `file`.
// Errors: kMalformedFile (naming the offset), kUnsupportedVersion (another
// FTxx identifier), kLimitExceeded (nesting), kResourceLimit (memory budget).
Result<PtdTable> read_ptd_table(const Blob& file);
// The same from the file's first bytes (`head`, in memory, ending at or
// after the flatbuffer) and its size; kInvalidArgument when the head is
// too short.
Result<PtdTable> read_ptd_table(const Blob& head, uint64_t file_size);

}  // namespace etpack
