// repack: rewrite a .pte (and optionally its .ptd files) with a new layout,
// without loading segment data: only the flatbuffer head is parsed, and
// every segment of the output refers to its range in the source (an
// external Blob when the source stays on disk or in a browser Blob).
//
// Options beyond alignment/extraction:
// - externalize: move constant tensors out of the .pte into named data under
//   one tag (a .ptd), as if the model had been exported with external
//   constants. Each moved tensor gets extra_tensor_info {fully_qualified_name,
//   location EXTERNAL} and data_buffer_idx 0; its key is its existing fully
//   qualified name, or "constant.<i>" (i = its original constant_buffer index)
//   when it has none. Only the tensor's exact bytes move (numel x element
//   size; padding stays behind). constant_buffer is compacted and the
//   remaining tensors re-indexed; when nothing but the placeholder would
//   remain it becomes empty, as upstream writes external-only programs.
// - merge: named data from other .ptd files is added under one tag.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/blob.h"
#include "read/file_source.h"
#include "core/json.h"
#include "core/result.h"
#include "encode/serialize_for_executorch.h"

namespace etpack {

struct ExternalizeOptions {
  std::string tag = "model";
  std::vector<std::string> patterns;  // glob ('*', '?') on the key; empty: all
  uint64_t min_bytes = 0;             // smaller tensors stay in the .pte
  uint64_t alignment = 16;            // named-data alignment of moved tensors
};

struct RepackOptions {
  PteConfig config;
  FlatTensorConfig data_config;
  std::optional<ExternalizeOptions> externalize;
  std::vector<FileSource> merge;  // .ptd files whose named data joins `merge_tag`
  std::string merge_tag = "model";
};

struct MovedTensor {
  std::string key;
  uint64_t bytes = 0;
  std::vector<std::string> paths;  // e.g. "execution_plan[0].values[3]"
};

struct RepackResult {
  SerializedArtifacts artifacts;
  std::vector<MovedTensor> moved;  // externalized tensors, in key order of first use
  uint64_t merged_entries = 0;
};

// Errors: those of the readers (kMalformedFile, ...), the writers, and
// kDuplicateKey when an externalized or merged key already names other bytes.
Result<RepackResult> repack(const FileSource& pte, const RepackOptions& options);

// Glob match with '*' (any run) and '?' (one character).
bool glob_match(const std::string& pattern, const std::string& text);

}  // namespace etpack
