// A sharded checkpoint's index (model.safetensors.index.json): a JSON object
// whose "weight_map" maps each tensor name to the shard file holding it, a
// plain file name in the index's folder. Read as strictly as a safetensors
// header (safetensors_reader.h): strict UTF-8, keys unique in every object
// at any depth (JSON.parse would keep the last of two), weight_map values
// strings. Other members ("metadata") may hold any JSON, nested at most
// kMaxIndexDepth deep. Errors are SAFETENSORS_INDEX naming the file, the
// key and the byte offset.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace etpack {

constexpr size_t kMaxIndexDepth = 64;

struct SafetensorsShard {
  std::string file;                  // a file name (no folder part, not "." or "..")
  std::vector<std::string> tensors;  // the names weight_map gives it, in index order
};

// The shards in order of first mention in weight_map. Memory is
// proportional to the text.
Result<std::vector<SafetensorsShard>> read_safetensors_index(std::string_view text, const std::string& file);

}  // namespace etpack
