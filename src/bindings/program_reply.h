// A program for the JS glue as JSON text written straight from the model (no
// JSON document in between), plus the list of values JSON.parse cannot give
// exactly, which the glue sets after one plain JSON.parse
// (npm/src/program-reply.mjs is the other half).
//
// The text has upstream's _program_to_json shape and order (as
// table_to_json). Each value below is written as `null` in the text and
// listed in `fixups`, a JSON array of [kind, value, ...path], the path being
// field names and list indices from the program's root:
//   [0, i, ...]       the i-th blob of the Output (a [ubyte] field, by reference)
//   [1, "digits", ...] an integer outside +/-(2^53 - 1): a BigInt
//   [2, "NaN" | "Infinity" | "-Infinity", ...] a special double
// Strings are written as they are (a leading U+0000 needs no marker here).
#pragma once

#include <string>

#include "bindings/host_call.h"
#include "model/fb_value.h"

namespace etpack::bindings {

struct ProgramReply {
  std::string text;
  std::string fixups;
};

ProgramReply write_program_reply(const TableValue& program, Output& out);

}  // namespace etpack::bindings
