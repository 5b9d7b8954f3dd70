// deserialize: a .pte back into its program, a .ptd into its payload, and
// the probe that says how much of a file's start they need in memory.
#pragma once

#include <cstdint>

#include "core/blob.h"
#include "core/result.h"
#include "format/file_kinds.h"
#include "format/file_source.h"
#include "read/etdump_reader.h"
#include "read/ptd_reader.h"
#include "read/pte_reader.h"

namespace etpack {

// How many bytes of a file of `kind` to hold in memory before reading it:
// `probe` is its first file_kind(kind).probe_bytes (fewer for a shorter
// file) and `file_size` its size. `lenient` (validate, inspect: they report
// on a malformed file) turns a malformed head into a fixed prefix instead
// of an error.
Result<uint64_t> head_bytes(FileKind kind, const Blob& probe, uint64_t file_size, bool lenient);

// The program of a .pte (head in memory, the rest possibly external), as
// read/pte_reader.h's read_pte_program_bytes.
Result<PteProgramBytes> deserialize_pte_file(const FileSource& file);
// The payload of a .ptd: buffers are slices of file.file (no copies).
Result<PtdFile> deserialize_ptd_file(const FileSource& file);

}  // namespace etpack
