// Parts of inspect's .pte summary that interpret values: decoded compile
// specs and the largest constants.
#pragma once

#include "core/blob.h"
#include "core/json.h"
#include "model/fb_value.h"
#include "read/program_tensors.h"

namespace etpack {

// Sets "dtype" (the scalar type's name, or null) and "shape" (the sizes, or
// null when absent or past kMaxTensorRank) of `t` on `j`, as inspect prints
// every tensor.
void set_dtype_shape(Json& j, const TensorView& t);

// One CompileSpec: {"key": s | null, "bytes": n, "value": s | n | null}.
// The value is shown only when it is printable ASCII text (up to 256 bytes)
// or a 1-, 4- or 8-byte little-endian integer of magnitude below 2^31, so
// raw binary never reaches a terminal.
Json compile_spec_json(const TableValue& spec);

// The 10 largest in-file constants (constant segment or constant_buffer;
// a slice shared by several tensors counts once, at its first tensor),
// largest first: [{"name": fully_qualified_name, else "execution_plan[p].values[v]",
// "bytes", "dtype", "shape", "where": "constant_segment.offsets[i]" |
// "constant_buffer[i]"}]. `file` is what the program was decoded from.
Json largest_constants_json(const Blob& file, const TableValue& program);

}  // namespace etpack
