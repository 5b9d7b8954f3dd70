// Schema-driven conversion between JSON (upstream's _program_to_json shape:
// snake_case fields, `<field>_type` union tags naming the member table,
// enums as integers, byte vectors as integer lists, "inf"/"-inf" strings or
// bare Infinity/NaN for doubles) and the TableValue model.
#pragma once

#include <string>

#include "core/json.h"
#include "core/result.h"
#include "model/fb_value.h"

namespace etpack {

// Reads `json` as a table of type `def`. Unknown fields, wrong types and
// out-of-range integers are kSchemaMismatch errors naming the JSON path
// (e.g. "execution_plan[0].values[3].val.sizes[1]"). `path` prefixes it.
Result<TableValue> table_from_json(const Json& json, const TableDef& def, const std::string& path = "");

// Writes every field in declaration order; absent fields are null and a union
// `f` is followed by `f_type`. int64/uint64 stay exact.
Json table_to_json(const TableValue& table);

}  // namespace etpack
