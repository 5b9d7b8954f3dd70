// Reads a program a JavaScript host wrote as a value stream
// (core/value_stream.h) as a table of type `def`, by the same reader and
// rules as JSON text (model/value_json.h, table_from_json_text): the same
// kSchemaMismatch errors naming the path; a malformed stream is
// kInvalidArgument naming the byte offset. Byte references (BYTES) are
// resolved by `resolve_blob`.
#pragma once

#include <string_view>
#include <vector>

#include "model/value_json.h"

namespace etpack {

Result<TableValue> table_from_value_stream(std::string_view bytes, const TableDef& def,
                                           const BlobResolver& resolve_blob = nullptr);

// The same with the root's member whose value is at [skip_begin, skip_end)
// of the stream passed over and left absent: encode/stream_encoder.h has
// read the whole stream without an error and encoded that member, and
// `keys` are the keys it found defined (ValueStream::keys()).
Result<TableValue> table_from_value_stream_without(std::string_view bytes, const TableDef& def, const BlobResolver& resolve_blob,
                                                   size_t skip_begin, size_t skip_end, std::vector<std::string_view> keys);

}  // namespace etpack
