// A decoded flatbuffer as flatc prints it with `--json --strict-json
// --defaults-json` (upstream's _flatc_decompile flags), walked generically
// over the schema (no generated code): fields in declaration order, every
// scalar present (its default when the bytes omit it; an optional `= null`
// scalar only when stored), structs as objects, enums and union
// types by name (a number when the value has no name), a union as
// `<field>_type` then `<field>`, absent tables, strings, vectors and unions
// left out, deprecated fields never printed. Where flatc rounds (floats to
// 6 decimals, doubles to 12) this prints the stored value exactly: a float
// is its float32 value widened, in shortest round-trip form; NaN and
// infinities are the bare tokens NaN, Infinity, -Infinity. 64-bit integers
// are exact tokens. Strings from the file that are not UTF-8 are decoded
// as core/utf8_text.h does.
#pragma once

#include <string_view>

#include "core/json.h"
#include "model/fb_value.h"

namespace etpack {

// `identifier` is the buffer's file identifier: fields declared
// (only_in: "ID") are printed only when it is ID.
Json flatc_json(const TableValue& table, std::string_view identifier);

}  // namespace etpack
