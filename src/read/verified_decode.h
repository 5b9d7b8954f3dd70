// A flatbuffer decoded by our bounded decoder and checked by flatc's
// generated verifier (the runtime's own check), for the two schemas. The
// readers of validate and inspect use these; the tree's vectors are slices
// of `flatbuffer`. Verification goes through schema/verify.h, the one
// entry, with its named limits.
#pragma once

#include "core/blob.h"
#include "core/result.h"
#include "model/fb_value.h"
#include "schema/verify.h"

namespace etpack {

// Errors: kMalformedFile (naming the offset; verifier failures name byte 0),
// kLimitExceeded (depth), kResourceLimit (the memory budget of
// decode_flatbuffer).
Result<TableValue> decode_verified_program(const Blob& flatbuffer);
Result<TableValue> decode_verified_flat_tensor(const Blob& flatbuffer);
// flatc's verifier alone, for readers that check the offsets they follow
// themselves (read/ptd_table.cpp's columns): the same error as above.
Status verify_flat_tensor(const Blob& flatbuffer);
// Whether `bytes` (in memory, at any address: an aligned copy is made when
// they are misaligned) verify as `root` within its named limits.
bool flatbuffer_verifies_aligned(VerifiedRoot root, const Blob& bytes);

}  // namespace etpack
