// Header sizes the runtime reads past. Program::load loads eh00
// program_size bytes and FlatTensorDataMap::load flatbuffer_offset +
// flatbuffer_size bytes, and both read the flatbuffer from byte 0 (root
// offset): a size that runs past the segment base changes nothing they
// read as long as the flatbuffer lies wholly before the base. validate
// warns about such a size (HEADER_SIZE_LARGER); the readers take the base
// as the flatbuffer's end, so they accept what validate accepts.
#pragma once

#include <cstdint>
#include <optional>

#include "core/blob.h"

namespace etpack {

// A segment base taken as "the size was raised, the base stayed" must be
// a multiple of this (upstream's segment alignments are >= 16; a base moved
// back by a few bytes into the flatbuffer's tail padding is not).
constexpr uint64_t kRaisedSizeBaseAlignment = 16;

// Whether `head`'s first `size` bytes hold a whole Program (or, with `ptd`,
// FlatTensor) flatbuffer that passes flatbuffers verification.
bool flatbuffer_verifies(const Blob& head, uint64_t size, bool ptd);

// `base` when a header claims the flatbuffer ends at `claimed_end` past a
// segment base `base` (>= `min_base`, aligned to kRaisedSizeBaseAlignment)
// and the flatbuffer verifies in [0, base): the flatbuffer's real end.
// nullopt otherwise (nothing raised, or the base really is inside it).
std::optional<uint64_t> flatbuffer_end_before_base(const Blob& head, uint64_t claimed_end, uint64_t base,
                                                   uint64_t min_base, bool ptd);

}  // namespace etpack
