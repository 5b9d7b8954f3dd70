// repack: rewrite a whole model — a .pte and the .ptd files it uses — with a
// new layout, without loading segment data: only the flatbuffer heads are
// parsed, and every segment of the output refers to its range in a source
// (an external Blob when the source stays on disk or in a browser Blob).
//
// What repack guarantees (issue 10: outputs the real runtime loads):
// - Inputs are checked first: the .pte is validated with its data files, and
//   the merged .ptd files; any error refuses (kInvalidInput, the
//   findings in RepackRefusal), except a missing constant-segment
//   placeholder (repack adds it) and EXTERNAL tensors not found (below).
//   Warnings pass.
// - EXTERNAL tensors of the .pte whose keys are in none of `data` and
//   `merge` refuse
//   (kMissingExternalData, the keys in RepackRefusal) unless
//   allow_missing_data: then the output keeps referring to keys it does not
//   carry, as the input did.
// - Every named-data key a delegate's backend looks up at init() must be in
//   an output (ops/delegate_keys_guard.h): else kMissingDelegateData naming
//   the key, delegate and method (all keys in RepackRefusal), before
//   anything is written, unless allow_missing_data (then listed in
//   missing_keys, as EXTERNAL keys are).
// - The named data of every `data` file is carried into an output .ptd of
//   tag = its name without a trailing ".ptd" ("model.ptd" -> "model"), so
//   external tensors that stay external keep resolving; a host writes it
//   back as <tag>.ptd.
// - Every output has the constant-segment placeholder (offsets [0, ...]):
//   an input without it gets it, and constants of old exports kept in the
//   deprecated constant_buffer move into the constant segment (the runtime's
//   default build refuses both). An input that had the placeholder comes out
//   byte-identical to upstream's deserialize + serialize round trip.
// - externalize: see encode/externalize.h (keys, one per layout).
// - merge: named data of other .ptd files is added under `merge_tag`.
// - The outputs are validated together (heads + sizes; no segment data is
//   read) before they are returned; any error refuses (kInvalidOutput, the
//   findings in RepackRefusal).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/blob.h"
#include "core/result.h"
#include "encode/externalize.h"
#include "ops/serialize_for_executorch.h"
#include "format/file_source.h"
#include "validate/validate.h"

namespace etpack {

struct RepackOptions {
  PteConfig config;
  // Nothing changes unasked: unless the caller chooses (false here),
  // every delegate stays where the input has it (in a segment, equal blobs
  // sharing one, or inline) and the input's segment alignment is kept
  // (repack_layout.h); config.extract_delegate_segments and
  // config.segment_alignment are then not used.
  bool keep_delegate_placement = true;
  bool keep_segment_alignment = true;
  FlatTensorConfig data_config;
  std::optional<ExternalizeOptions> externalize;
  // The .ptd files the .pte uses, by name ("model.ptd"); carried as tags.
  std::vector<std::pair<std::string, FileSource>> data;
  bool allow_missing_data = false;
  std::vector<FileSource> merge;  // .ptd files whose named data joins `merge_tag`
  std::string merge_tag = "model";
};

// Where the delegates' blobs were and are.
struct DelegatePlacement {
  uint64_t in_segments = 0;        // in the output
  uint64_t inline_ = 0;            // in the output
  uint64_t moved_to_segments = 0;  // inline in the input
  uint64_t moved_inline = 0;       // in a segment in the input
};

struct RepackResult {
  SerializedArtifacts artifacts;
  DelegatePlacement delegates;
  uint64_t segment_alignment = 0;  // the one written with
  bool segment_alignment_kept = false;  // the input's (not given)
  std::vector<MovedTensor> moved;  // externalized tensors, in key order of first use
  uint64_t merged_entries = 0;
  uint64_t carried_entries = 0;           // named data carried from `data`
  std::vector<std::string> missing_keys;  // allowed missing (allow_missing_data)
};

// Why repack refused, beyond the error's message.
struct RepackRefusal {
  std::vector<std::string> missing_keys;  // kMissingExternalData, kMissingDelegateData
  std::vector<Finding> findings;          // kInvalidInput / kInvalidOutput: the errors
};

// Errors: kInvalidInput, kMissingExternalData, kMissingDelegateData, kInvalidOutput (details in
// `refusal` when given), kInvalidArgument (a data name that leaves an empty
// tag), kLayoutConflict and kDuplicateKey (a key that would stand for other
// bytes or another layout), and those of the readers and writers.
Result<RepackResult> repack(const FileSource& pte, const RepackOptions& options, RepackRefusal* refusal = nullptr);

// "model.ptd" -> "model"; other names stay as they are.
std::string data_tag(const std::string& name);

}  // namespace etpack
