// A program object's value stream read for writing a .pte: its execution
// plans encoded straight into a flatbuffer builder (encode/stream_encoder.h)
// and left out of the model when that gives the same file, the rest read
// into the model (model/stream_table.h).
#pragma once

#include <optional>
#include <string_view>

#include "core/result.h"
#include "encode/stream_encoder.h"
#include "model/fb_value.h"
#include "model/value_json.h"

namespace etpack {

// The program in `stream`, with `plans` set when its execution plans were
// encoded instead of read: only when the .pte writer would not change them
// (no external constants; when `extracting_delegates`, plans without
// delegates) and the program lists no segment (upstream's placeholder
// segment is restored from the plans). Otherwise, or when the stream
// encoder says no or the rest does not read, `plans` is empty and the whole
// program is read as table_from_value_stream reads it (its errors).
Result<TableValue> program_stream_for_pte(std::string_view stream, const BlobResolver& resolve_blob, bool extracting_delegates,
                                          bool external_constants, std::optional<StreamPrefix>& plans);

}  // namespace etpack
