// The processed blob of a .pte's delegate, located (inline in
// backend_delegate_data or a segment) and held in memory for the payload
// decoders: inspect and validate use it to look inside delegates.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/blob.h"
#include "core/result.h"
#include "model/fb_value.h"
#include "format/file_source.h"
#include "read/pte_reader.h"

namespace etpack {

// Blobs above this are not read to be decoded (a QNN context binary can be
// gigabytes; its header alone says what it is).
constexpr uint64_t kMaxDecodedDelegateBytes = uint64_t{64} << 20;

// The blob of `delegate` (a BackendDelegate of `file.program`), in memory:
// a slice of the head when inline, else read from `pte.file` (external
// bytes through the host). nullopt when the blob is not where the program
// says (validate reports that elsewhere), larger than `max_bytes`, or
// unreadable. Never reads outside the file.
std::optional<Blob> delegate_blob_in_memory(const FileSource& pte, const PteFile& file, const TableValue& delegate,
                                            uint64_t max_bytes = kMaxDecodedDelegateBytes);

// The keys of the .pte's own named_data table.
std::vector<std::string> pte_named_keys(const TableValue& program);

}  // namespace etpack
