// The FlatTensor (.ptd) data serializer, as upstream
// extension/flat_tensor/serialize/serialize.py writes it, behind the
// DataSerializer interface (upstream exir/_serialize/data_serializer.py) so
// callers can plug in their own format.
#pragma once

#include <cstdint>
#include <vector>

#include "core/blob.h"
#include "core/result.h"
#include "core/cord.h"
#include "model/data_payload.h"
#include "model/named_data_store.h"

namespace etpack {

class DataSerializer {
 public:
  virtual ~DataSerializer() = default;
  // Returns the serialized blob; Blobs in `payload` must outlive the Cord.
  virtual Result<Cord> serialize(const DataPayload& payload) = 0;
};

struct FlatTensorConfig {
  uint64_t segment_alignment = 128;
};

class FlatTensorSerializer : public DataSerializer {
 public:
  explicit FlatTensorSerializer(FlatTensorConfig config = {}) : config_(config) {}
  // One segment per distinct buffer (alignment of its first key), FH01 header,
  // then the segments; buffer bytes are referenced, not copied.
  // Errors: kInvalidAlignment, kInvalidArgument (buffer index out of range).
  Result<Cord> serialize(const DataPayload& payload) override;
  const FlatTensorConfig& config() const { return config_; }

 private:
  FlatTensorConfig config_;
};

}  // namespace etpack
