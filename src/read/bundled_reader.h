// Reading a BundledProgram (.bpte): a program plus, per method, test cases.
// One plain flatbuffer (identifier, no extended header); the embedded
// program is a [ubyte] vector holding a whole .pte file. The input is
// untrusted: the bounded decoder (read/fb_decoder.h) builds the tree, then
// flatc's generated verifier checks the same bytes.
#pragma once

#include "core/blob.h"
#include "core/result.h"
#include "model/fb_value.h"

namespace etpack {

struct BundledFile {
  TableValue bundle;  // a BundledProgram table (schema/bundled_program.fbs)
  Blob program;       // the embedded .pte: a slice of the file (no copy); empty when absent
};

// Errors: kMalformedFile naming the offset (an identifier that is not
// BPxx, a bad offset; a verifier failure names byte 0), kUnsupportedVersion
// (BPxx other than BP08), kLimitExceeded (nesting), kResourceLimit (the
// decoder's memory budget).
Result<BundledFile> read_bundled_program(const Blob& file);

}  // namespace etpack
