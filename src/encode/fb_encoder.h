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
#include <memory>
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

class FlatBuilder;  // encode/fb_builder.h

// A root's first child already encoded (by encode/stream_encoder.h, straight
// from a value stream): the builder holding it, to be continued, and the
// child's offset. Only for kReferencePython, whose builder meets that child
// first; the root model leaves the field absent.
struct EncodedPrefix {
  std::unique_ptr<FlatBuilder> builder;
  const FieldDef* field = nullptr;  // a field of the root's table
  uint32_t offset = 0;

  EncodedPrefix();
  EncodedPrefix(EncodedPrefix&&) noexcept;
  EncodedPrefix& operator=(EncodedPrefix&&) noexcept;
  ~EncodedPrefix();
};

// Builds the buffer for `root` with `file_identifier` (4 chars). The bytes of
// byte vectors are copied once, into the flatbuffer itself (they are part of
// it; e.g. inline delegate blobs of a program that keeps them inline).
// With `prefix`, continues its builder: the prefix stands for its field of
// the root (kInternal when it is not the root's first child present).
Result<EncodedFlatbuffer> encode_flatbuffer(const TableValue& root, const std::string& file_identifier,
                                            const EncodeOptions& options, const EncodedPrefix* prefix = nullptr);

}  // namespace etpack
