// deserialize_pte_binary: a .pte file back to its program, mutable data and
// named data, as upstream exir/_serialize/_program.py restores them. The
// input is untrusted: every header field, offset and size is checked.
#pragma once

#include <optional>
#include <vector>

#include "core/blob.h"
#include "core/result.h"
#include "format/headers.h"
#include "model/fb_value.h"
#include "model/named_data_store.h"

namespace etpack {

struct PteFile {
  TableValue program{program_schema().root};
  std::optional<std::vector<Blob>> mutable_data;     // nullopt: none in the file
  std::optional<NamedDataStoreOutput> named_data;    // nullopt: none in the file
  std::optional<PteHeader> header;                   // the eh00 header, if any
};

// Restores segment data into the program: delegates inline (one copy per
// delegate, as upstream), constants into constant_buffer (each slice runs to
// the next offset, so padding stays attached), mutable data and named data
// out of it; `segments` and `named_data` become empty lists. Unlike upstream,
// a list the file did not have stays absent, so writing the program again
// reproduces the file. All returned byte vectors are slices of `file` (no
// copies); they keep `file`'s storage alive.
// Errors: kMalformedFile (naming the offset), kUnsupportedVersion (an ETxx
// identifier other than ET12), kLimitExceeded.
Result<PteFile> deserialize_pte_binary(const Blob& file);

// Parses and bounds-checks only the flatbuffer part (no segment restoring).
// Returns the program and the header; used by inspect/validate/repack.
Result<PteFile> read_pte_program(const Blob& file);

}  // namespace etpack
