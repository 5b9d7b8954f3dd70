// Reads a program a JavaScript host wrote as a value stream
// (core/value_stream.h) as a table of type `def`, by the same reader and
// rules as JSON text (model/value_json.h, table_from_json_text): the same
// kSchemaMismatch errors naming the path; a malformed stream is
// kInvalidArgument naming the byte offset. Byte references (BYTES) are
// resolved by `resolve_blob`.
#pragma once

#include <string_view>

#include "model/value_json.h"

namespace etpack {

Result<TableValue> table_from_value_stream(std::string_view bytes, const TableDef& def,
                                           const BlobResolver& resolve_blob = nullptr);

}  // namespace etpack
