// What repack keeps of its input's layout when the caller does not choose
// (issue 37: nothing changes unasked): where each delegate's blob is (a
// segment or inline) and the segment alignment.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "core/result.h"
#include "model/fb_value.h"
#include "format/file_source.h"

namespace etpack {

struct InputLayout {
  std::vector<bool> delegate_in_segment;      // one per delegate, in execution-plan order
  std::optional<uint64_t> segment_alignment;  // kept_segment_alignment; none without segment data
};

// Reads the .pte's flatbuffer (segment data is not read).
// Errors: those of read_pte_program.
Result<InputLayout> input_layout(const FileSource& pte);

// The segment alignment that lays out the input's segments again: the
// smallest power of two that reproduces the segment base and every
// segment's offset (so an unchanged program is written at the same
// offsets), but not below the alignment the input shows up to 128
// (upstream's default: a changed program stays at least that aligned).
// `segments`: (offset, size) relative to `base`. None when base is 0 or
// there are no segments.
std::optional<uint64_t> kept_segment_alignment(uint64_t program_size, uint64_t base,
                                               const std::vector<std::pair<uint64_t, uint64_t>>& segments);

// One per delegate, in execution-plan order: whether it has delegate data
// of at least one byte (a program whose delegates are all inline).
std::vector<bool> delegates_with_data(const TableValue& program);

}  // namespace etpack
