// safetensors checkpoints, read as strictly as the reference implementation
// (huggingface/safetensors): an 8-byte little-endian header length N, N bytes
// of UTF-8 JSON starting with '{' (no BOM, no leading space), then the data
// area. The header is one object: "__metadata__" (an object of strings, or
// null) and tensors {"dtype", "shape", "data_offsets": [begin, end]}, offsets
// relative to the data area. Offsets and dims are JSON integers (36.0 and
// 48e0 are refused), keys are unique at every level, a known dtype, and the
// tensors' ranges sorted by offset tile the data area exactly: no hole, no
// overlap, no trailing byte. Each tensor's byte count is its shape's element
// count times the dtype's width (checked math).
// Only the header is parsed here; tensor bytes are never touched, so memory
// is proportional to the header (bounded by kMaxSafetensorsHeader): a name
// is a view of the header text (a name with JSON escapes, decoded, is kept
// by the header), a dtype a pointer into the reader's dtype table, and no
// per-name set is built (duplicates are found by sorting indices), so a
// checkpoint of a million tensors costs about 80 bytes per tensor beside
// its header text.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

namespace etpack {

// The reference reader's bound on N (100 MB): refused before any allocation.
constexpr uint64_t kMaxSafetensorsHeader = 100'000'000;
// Longest shape accepted (more than any framework makes; bounds the work).
constexpr size_t kMaxSafetensorsRank = 64;

struct SafetensorsTensor {
  // UTF-8 (the reference refuses lone surrogates). From the reader: a view
  // of the header text, or of SafetensorsHeader::decoded_names.
  std::string_view name;
  const char* dtype = "";  // the reader's table's name ("F32"), static
  std::optional<int8_t> scalar_type;  // ExecuTorch's ScalarType, when it has one
  std::vector<uint64_t> shape;
  uint64_t begin = 0;  // relative to the data area
  uint64_t end = 0;
  uint64_t size() const { return end - begin; }
};

// Move-only: tensors' names view decoded_names (and the text it was read
// from); a move keeps every element where it is.
struct SafetensorsHeader {
  SafetensorsHeader() = default;
  SafetensorsHeader(SafetensorsHeader&&) = default;
  SafetensorsHeader& operator=(SafetensorsHeader&&) = default;
  SafetensorsHeader(const SafetensorsHeader&) = delete;
  SafetensorsHeader& operator=(const SafetensorsHeader&) = delete;

  uint64_t header_size = 0;  // N
  uint64_t data_start = 0;   // 8 + N: absolute offset of the data area
  std::vector<std::pair<std::string, std::string>> metadata;  // in header order
  std::vector<SafetensorsTensor> tensors;                     // in header order
  std::deque<std::string> decoded_names;  // names that had JSON escapes (a deque: views stay valid as it grows)
};

// N from the first bytes of a file of `file_size` bytes (at least 8 of them
// unless the file is shorter): how many header bytes to read next.
// SAFETENSORS_TRUNCATED (< 8 bytes), SAFETENSORS_HEADER_SIZE (N past the end
// of the file or above kMaxSafetensorsHeader). `file` names it in messages.
Result<uint64_t> safetensors_header_size(std::string_view first_bytes, uint64_t file_size, const std::string& file);

// The header `text` (bytes 8 .. 8+N of a file of `file_size` bytes), parsed
// and checked. Errors (coded SAFETENSORS_*) name the file, the tensor and the
// absolute offset of the problem. Tensor names view `text`: keep it alive
// as long as the header.
Result<SafetensorsHeader> read_safetensors_header(std::string_view text, uint64_t file_size, const std::string& file);

// safetensors dtype <-> ScalarType (src/model/scalar_type.cpp numbering).
std::optional<int8_t> safetensors_dtype_scalar(std::string_view dtype);
const char* safetensors_dtype_name(std::string_view dtype);  // the table's own text; nullptr: unknown
const char* scalar_safetensors_dtype(int64_t scalar_type);  // nullptr: none

// Strict UTF-8 (no overlongs, no surrogates, at most U+10FFFF): the offset
// of the first bad byte, or npos.
size_t first_invalid_utf8(std::string_view s);

// A name as printable text: JSON string escapes, a lone surrogate (its
// 3-byte encoding) as \udxxx and other invalid bytes as \xNN, never U+FFFD.
std::string escaped_name(std::string_view name);

}  // namespace etpack
