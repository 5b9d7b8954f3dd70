// Reading test inputs (conformance vectors, artifacts) into memory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "core/blob.h"

namespace etpack::testing {

// The file's bytes; empty when it cannot be read (the test's checks then fail).
inline std::vector<uint8_t> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The file as an owning Blob.
inline Blob load_file(const std::filesystem::path& path) { return Blob::own(read_bytes(path)); }

}  // namespace etpack::testing
