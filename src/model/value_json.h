// Schema-driven conversion between JSON (upstream's _program_to_json shape:
// snake_case fields, `<field>_type` union tags naming the member table,
// enums as integers, byte vectors as integer lists) and the TableValue model.
// Doubles are exact both ways, in upstream's Python json spellings: bare
// NaN, Infinity, -Infinity tokens, -0.0, and a Double's infinity as the
// string "inf"/"-inf" (exir/schema.py). No other string is read as a number
// ("nan" is a kSchemaMismatch). A NaN read from text is the quiet NaN
// 0x7ff8000000000000 (Python's); a NaN decoded from a flatbuffer keeps its
// payload bits for as long as it stays in the model.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "core/json.h"
#include "core/result.h"
#include "model/fb_value.h"

namespace etpack {
// Resolves a byte-vector reference object (what a host writes instead of an
// integer list) to the bytes it names.
using BlobResolver = std::function<Result<Blob>(const Json& reference)>;

// Reads JSON text as a table of type `def`, straight into the model (no
// document in between). Integer fields also accept a string of decimal
// digits (how JavaScript hosts pass BigInts). Syntax errors are kInvalidJson
// naming the offset; unknown fields, wrong types and out-of-range integers
// are kSchemaMismatch naming the path (e.g.
// "execution_plan[0].values[3].val.sizes[1]").
// With `resolve_blob`, a [ubyte] field may also hold an object, resolved to
// bytes by it.
Result<TableValue> table_from_json_text(std::string_view text, const TableDef& def,
                                        const BlobResolver& resolve_blob = nullptr);
// The same for an already parsed document.
Result<TableValue> table_from_json(const Json& json, const TableDef& def);

struct ToJsonOptions {
  // For JavaScript hosts, whose numbers are doubles: an integer outside
  // +/-(2^53 - 1) is written as the string "\u0000<digits>", and a real string
  // value that starts with U+0000 gets one more U+0000 in front. The host
  // turns the first into a BigInt and strips the second; nothing else can
  // produce either form, so the mapping is unambiguous. A NaN other than the
  // canonical one is written as "\u0000B<16 hex digits>" (core/nan_bits.h).
  bool js_bigint_markers = false;
  // When set and it returns a value, a byte vector ([ubyte]) is written as
  // that value instead of a list of integers (hosts pass bytes by reference).
  std::function<std::optional<Json>(const FieldDef& field, const Blob& bytes)> byte_vector;
};


// Writes every field in upstream's dataclass order (exir/schema.py; the
// schema's order but for Tensor.layout); absent fields are null and a union
// `f` is followed by `f_type`. int64/uint64 stay exact.
Json table_to_json(const TableValue& table, const ToJsonOptions& options = {});

// The pieces table_to_json is made of, for writers that stream text instead
// of building a document (ops/program_reply.cpp): a table's fields in
// upstream's dataclass order, and one little-endian vector element.
const std::vector<const FieldDef*>& json_field_order(const TableDef& def);
Scalar get_scalar(const uint8_t* p, BaseType type);
// A scalar vector's bytes: in memory where they are, external ones read
// from the host into `fetched` (to print them); `size` is their count.
const uint8_t* scalar_vector_bytes(const Blob& raw, std::vector<uint8_t>& fetched, size_t& size);

}  // namespace etpack
