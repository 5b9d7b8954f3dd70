// extract: one delegate's processed blob, byte for byte, from wherever the
// .pte keeps it (inline in backend_delegate_data or in a segment). Hardware
// SDKs take the blob alone (a context binary, a compiled graph).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/cord.h"
#include "core/result.h"
#include "format/file_source.h"

namespace etpack {

struct ExtractedDelegate {
  Cord bytes;               // a slice of the input: no byte is copied here
  std::string method;       // the method that holds the delegate
  uint64_t index = 0;       // the delegate's index in that method
  std::optional<std::string> id;
  std::string location;     // "inline" or "segment"
  std::optional<uint64_t> offset;  // where the blob starts in the file (none for empty inline data, as inspect)
};

// Delegates are counted over the methods in order (method 0's first), or
// within `method` when one is named. Errors: kInvalidArgument for a method
// or index the file does not have; kMalformedFile (naming the offset) when
// the delegate's data reference points at no data or past the file's end;
// those of read_pte_program.
Result<ExtractedDelegate> extract_delegate(const FileSource& pte, const std::optional<std::string>& method, uint64_t index);

}  // namespace etpack
