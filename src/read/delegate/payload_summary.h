// What inspect and validate say about a decoded delegate payload: node and
// value counts, the operator histogram, the constant bytes the blob holds
// itself, and the named-data keys its backend looks up at init() (with the
// byte count the blob records for each, when it records one).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/json.h"
#include "read/delegate/delegate_payload.h"

namespace etpack {

struct PayloadNamedKey {
  std::string key;
  std::optional<uint64_t> bytes;
};

struct PayloadSummary {
  std::string kind;                        // DelegatePayload::kind_name
  std::optional<uint64_t> nodes, values;   // flatbuffer kinds only
  std::vector<std::pair<std::string, uint64_t>> operators;  // first-seen order
  // Tensor values by dtype as the backend's schema names it
  // ("xnn_datatype_qcint8", "FLOAT"), and quantized ones by scheme
  // ("PerChannelQuant", "AffineGroup"); first-seen order.
  std::vector<std::pair<std::string, uint64_t>> dtypes, quantization;
  uint64_t constant_bytes = 0;             // in the blob
  // The keys the backend asks the named data map for, as it decides:
  // XNNPACK every referenced constant whose named_key field is present
  // (even ""), Vulkan a present key with offset UINT64_MAX, MLX the
  // constant slots' names, native the constants' data keys, Core ML's
  // CMJR reference key, Ethos-U's external blocks. Each key once.
  std::vector<PayloadNamedKey> named_keys;
  std::optional<Json> model;  // Core ML: DelegatePayload::model
};

PayloadSummary summarize_payload(const DelegatePayload& payload);

// {"kind", "nodes", "values", "operators": {name: count}, "dtypes": {name:
//  count}, "quantization": {scheme: count}, "constantBytes",
//  "namedKeys": [{"key", "bytes"}], "model": Core ML's model facts | null}
// (nodes/values null for other kinds).
Json payload_summary_json(const PayloadSummary& summary);

}  // namespace etpack
