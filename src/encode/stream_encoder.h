// One field of a program's root encoded straight from the value stream a
// JavaScript host wrote (core/value_stream.h) into a flatbuffer builder,
// without the program model: serialize's fast route for the bulk of a
// program (its execution plans: values, instructions), which the .pte
// writer never changes unless it extracts delegates. Reading those into the
// model, encoding the model and freeing it was most of serialize's wasm
// time; here each value is read once and placed at once.
//
// It takes only what the model route (model/stream_table.h, then
// encode_flatbuffer with kReferencePython) takes and encodes the same way,
// so the bytes are the same; anything else (an error, or a form it does not
// handle) is a "no" and the caller takes the model route, which reports
// errors with their paths as always.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "encode/fb_encoder.h"
#include "schema/schema.h"

namespace etpack {

struct StreamPrefix {
  EncodedPrefix encoded;   // the builder holding the field, and its offset
  size_t value_begin = 0;  // where the field's value is in the stream
  size_t value_end = 0;    // and where it ends: the model reader skips [begin, end)
  std::vector<std::string_view> keys;  // every key the stream defines (ValueStream::keys())
  size_t counted = 0;      // tables of the caller's `counted` type met (at least)
};

// `field` (a list of tables of the root table `root`, e.g.
// Program.execution_plan) of the value stream `bytes`, encoded as the model
// route's builder would meet it first. nullopt unless the stream is well
// formed, names the field once (not null), and everything in it is of the
// forms the model reader reads exactly as here: known keys, each given once;
// strings, lists and tables in declaration order (scalars in any order);
// scalars given as INT32, DOUBLE, true or false within their type's range;
// each union with its member type (before or after its value, not NONE or
// null); no byte references, no structs. `options` gives the force_align
// overrides. Never an error: the model route reports those. The stream is
// read to its end, so `keys` holds all its definitions.
// `counted`: a table type whose tables in the field are counted (e.g.
// BackendDelegate: the .pte writer extracts delegates from the plans).
std::optional<StreamPrefix> encode_stream_prefix(std::string_view bytes, const TableDef& root, const FieldDef& field,
                                                 const EncodeOptions& options, const TableDef* counted = nullptr);

}  // namespace etpack
