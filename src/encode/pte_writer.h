// serialize_pte_binary: a Program (plus mutable data and named data) to a
// .pte file, as upstream exir/_serialize/_program.py writes it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/blob.h"
#include "core/result.h"
#include "core/cord.h"
#include "model/fb_value.h"
#include "model/named_data_store.h"

namespace etpack {

struct PteConfig {
  bool extract_delegate_segments = false;
  uint64_t segment_alignment = 128;
  std::optional<uint64_t> constant_tensor_alignment;  // default 16
  std::optional<uint64_t> delegate_alignment;         // default: the schema's 16
};

constexpr uint64_t kDefaultConstantTensorAlignment = 16;  // exir.tensor.ALIGNMENT

// Returns the .pte as a Cord: owned header + flatbuffer bytes, then views of
// the constant, mutable, delegate and named-data bytes (not copied), with zero
// padding between. The Blobs referenced by `program`, `mutable_data` and
// `named_data` must outlive the Cord. `program` is not modified.
// Errors: kInvalidAlignment (bad tensor/delegate/segment alignment),
// kDelegateNotInline, kDelegateIndexOutOfRange, kDelegateDataUnreferenced
// (when extracting delegates), kProgramHasNamedData, kSchemaMismatch.
Result<Cord> serialize_pte_binary(const TableValue& program, const std::vector<Blob>* mutable_data,
                                  const NamedDataStoreOutput* named_data, const PteConfig& config);

}  // namespace etpack
