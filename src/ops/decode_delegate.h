// decodeDelegate: one delegate's processed blob decoded by its payload kind
// (format/payload_kinds.def, read/delegate/): {"kind", "header", "graph"}
// for the flatbuffer kinds, {"kind", "header", "content"} for the others,
// {"kind": "opaque", "header": {"blob_size"}} for a blob of no known kind.
#pragma once

#include <string>
#include <string_view>

#include "core/blob.h"
#include "core/result.h"

namespace etpack {

// `blob` is read in place (bytes in memory); `backend` is the delegate's
// backend id, or empty to find the kind by magic. Errors: those of
// decode_delegate_payload (kMalformedFile naming the payload offset, the
// flatbuffer decoder's limits), kInvalidArgument for external bytes.
Result<std::string> decode_delegate_json(const Blob& blob, std::string_view backend);

}  // namespace etpack
