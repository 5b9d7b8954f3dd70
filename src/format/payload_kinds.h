// The delegate payload-kind table (payload_kinds.def) and the two wrapper
// headers payloads carry: the 30-byte XH00/VH00 header (XNNPACK, Vulkan)
// and the 24-byte MP00/MLX0 header (MPS, MLX). Headers are parsed here
// only; the decoders in read/delegate/ cut the blob by them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace etpack {

enum class PayloadLayout {
  kWrapped30,         // XH00/VH00 header, flatbuffer, constant bytes
  kSegmented24,       // MP00/MLX0 header, flatbuffer, data segment
  kBareFlatbuffer,    // the whole blob is the flatbuffer
  kCoremlReference,   // CMJR + JSON naming a named-data entry
  kInMemoryFs,        // files, then a byte-reversed JSON directory
  kQnnContext,        // 256-byte header, then a QNN context binary
  kVelaBlocks,        // Ethos-U vela_bin_stream blocks
};

enum class PayloadKind {
#define PAYLOAD_KIND(e, kind, backend, magic, magic_offset, identifier, layout) e,
#include "format/payload_kinds.def"
#undef PAYLOAD_KIND
};

struct PayloadKindInfo {
  PayloadKind kind;
  std::string_view name;        // "xnnpack", ...
  std::string_view backend_id;  // "XnnpackBackend", ...
  std::string_view magic;       // "" when the layout has none
  size_t magic_offset;
  std::string_view identifier;  // flatbuffer file_identifier, or ""
  PayloadLayout layout;
};

const PayloadKindInfo& payload_kind(PayloadKind kind);

// Which row describes `blob` (`size` bytes). With a `backend` id only that
// backend's rows are tried; then nullopt means "not a layout that backend
// reads" only for backends we do not know; for a known backend whose rows
// all fail, a kMalformedFile error says what was expected at which offset
// (QNN's runtime reads a blob without its magic as a DLC: opaque, unless
// the blob is cut short inside the magic).
// Without a backend (empty), every row with a magic or identifier is tried
// and nullopt means opaque.
Result<std::optional<PayloadKind>> detect_payload_kind(const uint8_t* blob, size_t size, std::string_view backend);

// The 30-byte header of XNNPACK (XH00) and Vulkan (VH00). Keep in sync with
// upstream XNNHeader.h / VulkanDelegateHeader.h.
struct WrapperHeader30 {
  static constexpr size_t kMagicOffset = 4;
  static constexpr size_t kLength = 30;  // header_length as written
  std::string magic;
  uint16_t header_length = 0;
  uint32_t flatbuffer_offset = 0;
  uint32_t flatbuffer_size = 0;
  uint32_t data_offset = 0;  // constant_data_offset / bytes_offset
  uint64_t data_size = 0;    // constant_data_size / bytes_size
};

// Parses and bounds-checks the header against the blob: nullopt when
// bytes 4..8 are not `magic` (no header here), kMalformedFile naming the
// field and offset when it is there but does not fit the blob.
Result<std::optional<WrapperHeader30>> parse_wrapper_header30(const uint8_t* blob, size_t size,
                                                              std::string_view magic);

// The 24-byte header of MPS (MP00) and MLX (MLX0); the flatbuffer follows at
// offset 24.
struct WrapperHeader24 {
  static constexpr size_t kLength = 24;
  std::string magic;
  uint64_t data_segment_offset = 0;
  uint64_t data_segment_size = 0;
};

Result<std::optional<WrapperHeader24>> parse_wrapper_header24(const uint8_t* blob, size_t size,
                                                              std::string_view magic);

}  // namespace etpack
