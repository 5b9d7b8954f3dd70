// serialize_for_executorch: the last step of upstream's exporter
// (exir/_serialize/_serialize.py). Writes one .pte and one data file per
// external tag, from the emitter's program, its external constants and a
// NamedDataStore.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/blob.h"
#include "core/result.h"
#include "core/cord.h"
#include "encode/pte_writer.h"
#include "encode/ptd_writer.h"
#include "model/fb_value.h"
#include "model/named_data_store.h"

namespace etpack {

struct EmitterOutput {
  TableValue program{program_schema().root};
  bool has_mutable_data = false;  // mutable_data is None upstream when false
  std::vector<Blob> mutable_data;
  // tag -> [(fully qualified name, index into external_constant_buffer)]
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, uint32_t>>>> external_constant_map;
  std::vector<Blob> external_constant_buffer;
};

struct SerializedArtifacts {
  Cord pte;
  std::vector<std::pair<std::string, Cord>> ptd;  // tag -> file, tag insertion order
};

// `store` may be null: a missing store counts as an empty one (upstream
// crashes there when external constants exist). All Blobs must outlive the
// returned Cords. Errors: those of serialize_pte_binary, the data
// serializer and NamedDataStore, plus kExternalTensorNotFound when an
// external constant's name has no EXTERNAL tensor in the program.
// `plans`: as serialize_pte_binary's (the program's execution plans encoded
// already; not with external constants, whose layouts are read from them:
// kInternal).
Result<SerializedArtifacts> serialize_for_executorch(const EmitterOutput& emitter, const PteConfig& config,
                                                     DataSerializer& data_serializer,
                                                     const NamedDataStoreOutput* store,
                                                     const EncodedPrefix* plans = nullptr);

// Layouts of the program's EXTERNAL tensors by fully qualified name (the
// first tensor seen wins when a name repeats).
std::vector<std::pair<std::string, TensorLayout>> external_tensor_layouts(const TableValue& program);

}  // namespace etpack
