// A program for the JS glue as JSON text written straight from its
// verified flatbuffer (no model, no JSON document in between), plus the
// list of values JSON.parse cannot give exactly, which the glue sets after
// one plain JSON.parse (npm/src/program-reply.mjs is the other half).
//
// The text has upstream's _program_to_json shape and order (as
// table_to_json of the model deserialize_pte_binary builds, segments
// restored the same way: read/pte_reader.h). Each value below is written as
// `null` in the text and listed in the fixups, a JSON array of
// [kind, value, ...path], the path being field names and list indices from
// the program's root:
//   [0, i, ...]       the blob `add_blob` numbered i (a [ubyte] field, by reference)
//   [1, "digits", ...] an integer outside +/-(2^53 - 1): a BigInt
//   [2, "NaN" | "Infinity" | "-Infinity", ...] a special double; "B" + 16
//   hex digits: a NaN other than the canonical one, by its bits
//   (core/nan_bits.h)
// Strings are written as they are (a leading U+0000 needs no marker here).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "core/blob.h"
#include "read/pte_reader.h"

namespace etpack {

// Appends the program's text to `text` and its fixup array to `fixups`.
// The text is bounded by the flatbuffer's size (kResourceLimit past 16x
// + 8 MiB: a file whose offsets reach the same bytes from many places).
// Errors are the decoder's for the same bytes.
// `add_blob` registers bytes returned by reference (views of the file) and
// returns their index (the binding's Output::add_blob).
using AddBlob = std::function<size_t(const Blob&)>;
Status write_program_reply(const PteProgramBytes& pte, const AddBlob& add_blob, std::string& text, std::string& fixups);

}  // namespace etpack
