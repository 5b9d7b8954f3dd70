// The ETDump (.etdp, issue 31) operations the bindings call: read (the file
// as flatc decodes it) and profile (its blocks joined with a program's
// methods: ops/profile.h).
#pragma once

#include <string>

#include "core/result.h"
#include "format/file_source.h"
#include "ops/profile.h"

namespace etpack {

// The .etdp as JSON text. Its head holds the whole flatbuffer
// (ops/deserialize.cpp's head size) and is read in place. Errors: the
// reader's (read/etdump_reader.h).
Result<std::string> etdump_read_json(const FileSource& etdp);

// The profile of the .etdp against the .pte (its head holds the program:
// pte_head_size) as JSON text. Errors: the readers', then profile_json's.
Result<std::string> etdump_profile_json(const FileSource& etdp, const FileSource& pte, const ProfileOptions& options);

}  // namespace etpack
