// serialize_pte_binary: a Program (plus mutable data and named data) to a
// .pte file, as upstream exir/_serialize/_program.py writes it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/blob.h"
#include "core/result.h"
#include "core/cord.h"
#include "encode/fb_encoder.h"
#include "model/fb_value.h"
#include "model/named_data_store.h"

namespace etpack {

struct PteConfig {
  bool extract_delegate_segments = false;
  // With extract_delegate_segments: which delegates, in execution-plan
  // order, move into segments (the others stay inline). Empty: every
  // delegate with data, as upstream.
  std::vector<bool> extract_only;
  uint64_t segment_alignment = 128;
  std::optional<uint64_t> constant_tensor_alignment;  // default 16
  std::optional<uint64_t> delegate_alignment;         // default: the schema's 16
};

constexpr uint64_t kDefaultConstantTensorAlignment = 16;  // exir.tensor.ALIGNMENT

// Returns the .pte as a Cord: owned header + flatbuffer bytes, then views of
// the constant, mutable, delegate and named-data bytes (not copied), with zero
// padding between. The Blobs referenced by `program`, `mutable_data` and
// `named_data` must outlive the Cord. `program` is not modified.
// A program read from a file without segment data still lists upstream's
// empty placeholder segment (segments [{0, 0}], constant_segment {0, [0...]},
// no constant_buffer): it is laid out again as an empty constant segment,
// so segments added now (delegates, mutable or named data) can follow it.
// Errors: kInvalidAlignment (bad tensor/delegate/segment alignment),
// kDelegateNotInline, kDelegateIndexOutOfRange, kDelegateDataUnreferenced
// (when extracting delegates), kProgramHasNamedData, kSchemaMismatch.
// With `plans` (its builder continued, so usable once): the program's
// execution_plan, already encoded (encode/stream_encoder.h), stands in for
// the model's (absent) one. The steps that read the plans see none: the
// caller uses it only where they would change nothing (with
// extract_delegate_segments, plans without delegates).
Result<Cord> serialize_pte_binary(const TableValue& program, const std::vector<Blob>* mutable_data,
                                  const NamedDataStoreOutput* named_data, const PteConfig& config,
                                  const EncodedPrefix* plans = nullptr);

}  // namespace etpack
