// Encodes a TableValue tree as a flatbuffer, reproducing byte for byte the
// two builders whose output upstream ships:
// - kReferencePython: the Python flatbuffers Builder (<= 24.3.25) driven by
//   the generated object-API Pack methods (.pte files). Children are packed
//   in field-declaration order, fields added in declaration order, vtables
//   shared when their field-offset lists match (object size ignored).
// - kFlatcJson: flatc compiling JSON (.ptd files). Fields are added largest
//   scalar first, reverse declaration order within a size; vtables shared
//   only when byte-identical.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "model/fb_value.h"

namespace etpack {

enum class EncodePolicy { kReferencePython, kFlatcJson };

struct EncodeOptions {
  EncodePolicy policy = EncodePolicy::kReferencePython;
  // Alignment for vectors declared with force_align, by "Table.field"
  // (e.g. "Buffer.storage"); fields not listed keep their declared value.
  std::vector<std::pair<std::string, uint32_t>> force_align_overrides;
};

struct EncodedFlatbuffer {
  std::vector<uint8_t> bytes;  // root offset, identifier, then the data
  uint32_t max_alignment = 1;  // the builder's minalign at finish
};

// Builds the buffer for `root` with `file_identifier` (4 chars). The bytes of
// byte vectors are copied once, into the flatbuffer itself (they are part of
// it; e.g. inline delegate blobs of a program that keeps them inline).
Result<EncodedFlatbuffer> encode_flatbuffer(const TableValue& root, const std::string& file_identifier,
                                            const EncodeOptions& options);

}  // namespace etpack
