// Reading test inputs (conformance vectors, artifacts) into memory.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
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

// $ETPACK_CONFORMANCE_DIR, else the folder CMake names (the
// ETPACK_CONFORMANCE_DIR definition: an absolute path, ../shared/conformance
// beside the source tree), so that the tests find it from any working
// directory. (__FILE__ is no base: with ccache's base_dir it is relative to
// the build folder.)
inline std::filesystem::path conformance_root() {
  if (const char* env = std::getenv("ETPACK_CONFORMANCE_DIR"); env != nullptr && *env != '\0') return env;
  return ETPACK_CONFORMANCE_DIR;
}

// The real runtime's ETDump recordings: $ETPACK_ETDUMP_DIR, else
// ../shared/etdump beside the source tree.
inline std::filesystem::path etdump_root() {
  if (const char* env = std::getenv("ETPACK_ETDUMP_DIR"); env != nullptr && *env != '\0') return env;
  return std::filesystem::path(ETPACK_SOURCE_DIR) / ".." / "shared" / "etdump";
}

// Every vector's program.json (upstream's own text): its path and text.
inline std::vector<std::pair<std::filesystem::path, std::string>> conformance_programs() {
  std::vector<std::pair<std::filesystem::path, std::string>> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(conformance_root(), ec)) {
    const std::filesystem::path path = entry.path() / "program.json";
    if (!std::filesystem::exists(path)) continue;
    const std::vector<uint8_t> bytes = read_bytes(path);
    out.emplace_back(path, std::string(bytes.begin(), bytes.end()));
  }
  return out;
}

// The one conformance output the runtime refuses for more than a missing
// placeholder: 20_int64_extremes plans value 0 at memory offset 2^64-1, so
// load_method fails (InvalidArgument: offset + nbytes overflows). Its only
// finding is PLANNED_TENSOR_PAST_BUFFER.
inline bool runtime_refuses_vector(const std::filesystem::path& path) {
  for (const auto& part : path)
    if (part == "20_int64_extremes") return true;
  return false;
}

}  // namespace etpack::testing
