// The head of a safetensors file: the 8-byte little-endian length, then the
// JSON header, padded with spaces so the data area starts 8-byte aligned (as
// the reference writer pads). Tensor bytes follow in the given order; they
// are never handled here, so a caller streams them from where they lie.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"

namespace etpack {

struct SafetensorsEntry {
  std::string name;
  std::string dtype;  // a safetensors dtype ("F32")
  std::vector<uint64_t> shape;
  uint64_t size = 0;  // bytes
};

// The header JSON is compact ({"__metadata__":{...},"name":{"dtype":"F32",
// "shape":[2,2],"data_offsets":[0,16]},...}): metadata first when there is
// any, then the tensors in the given order, offsets back to back. Names are
// written as given (UTF-8, JSON escapes). A name given twice, or a name
// "__metadata__", is INVALID_ARGUMENT (the file could not say which bytes it
// means); so is a size sum past 2^64.
Result<std::string> safetensors_head(const std::vector<SafetensorsEntry>& tensors,
                                     const std::vector<std::pair<std::string, std::string>>& metadata);

}  // namespace etpack
