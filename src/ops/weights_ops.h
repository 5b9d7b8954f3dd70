// The weights surface (issue 28): safetensors headers and indexes, the
// tensors a .pte holds and the keys of a .ptd, the match of checkpoints to
// a program, the export plan, dim-order permutes, and diff's range-hash
// plan and NaN bits.
// Each operation plans in the core what the JS glue (npm/src/weights.mjs,
// safetensors.mjs, diff.mjs, program-tensors.mjs) then carries out by moving
// bytes. Requests arrive parsed (bindings/request.h); each reply is JSON
// text written by core/json_writer.h (names as the JS strings they stand
// for, a lone surrogate kept) plus the byte blobs it returns. Byte inputs
// given as string_views are the caller's, alive for the call.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/blob.h"
#include "core/result.h"
#include "format/file_source.h"
#include "ops/diff_ranges.h"
#include "ops/weights_match.h"

namespace etpack {

struct WeightsReply {
  std::string json;
  std::vector<Blob> blobs;  // referenced by the JS glue as blobs 0, 1, ...
};

// A safetensors file's header: `file` as messages name it, its `size`, and
// its header bytes (8 .. 8+N).
struct SafetensorsHeaderBytes {
  std::string file;
  uint64_t size = 0;
  std::string_view header;
};

// header_size: {"header_size": N} from the file's first 8 bytes (`probe`).
Result<WeightsReply> weights_header_size(const std::string& file, uint64_t size, std::string_view probe);

// header: {header_size, data_start, metadata: [[k, v]], tensors: [[name,
// dtype, scalar type | null, shape, offset, size]]}, offsets absolute.
Result<WeightsReply> weights_header(const SafetensorsHeaderBytes& header);

// index: {"shards": [[file, [name, ...]]]} of a model.safetensors.index.json.
Result<WeightsReply> weights_index(const std::string& file, std::string_view text);

// program_tensors: every tensor of every plan that carries data or a name,
// in plan/value order, classified as the runtime's getTensorDataPtr would
// (read/program_tensors.h): {"tensors": [[kind, name, file_name, path,
// scalar_type, sizes, dim_order, nbytes, buffer]]}. kind is "constant"
// (data_buffer_idx > 0), "mutable" (> 0 with allocation_info) or
// "external" (location EXTERNAL); name is the fqn as the deserialized
// program holds it (decoded text: invalid UTF-8 as U+FFFD) and file_name as
// the file holds it (a lone surrogate kept), both null without one; sizes
// and dim_order are the whole vectors; nbytes is element size x sizes, null
// when the type is unknown, a size is negative or it passes 2^53 - 1 (JS's
// safe integers); buffer is data_buffer_idx.
Result<WeightsReply> weights_program_tensors(const FileSource& pte);

// ptd_keys: {"keys": [[key, segment, layout | null]]} of every named-data
// entry, in file order; layout {scalar_type, sizes, dim_order}. Keys as the
// file holds them, like program_tensors' file_name.
Result<WeightsReply> weights_ptd_keys(const FileSource& ptd);

// nan_values: {"nans": [[path, "0x<16 hex digits>"]]} (ops/diff_values.h).
Result<WeightsReply> weights_nan_values(const FileSource& pte);

// match: checkpoints to a program's tensors (ops/weights_match.h).
struct WeightsMatchRequest {
  struct File {
    SafetensorsHeaderBytes header;
    // A sharded checkpoint's index promised these names in this shard
    // (`index` names the index file in the message when one is missing).
    std::optional<std::vector<std::string>> expect;
    std::string index = "index";
  };
  std::string target;  // "constant" or anything else (external)
  std::vector<std::pair<std::string, std::string>> rename;
  std::vector<File> files;
  // The program's tensors as the .pte holds them, or as the glue listed them.
  std::optional<FileSource> pte;
  std::vector<NamedTensor> program;
};
// {assigned: [{tensor, path, name, file, offset, size, permute, same_as:
// [{name, file, offset, size}]}], written, kept, unused, problems: [{name,
// problem, message}], message (when there are problems)}.
Result<WeightsReply> weights_match(const WeightsMatchRequest& request);

// export: what export-weights writes (plan_export) -> {chosen: [{tensor,
// size, permute}], skipped: [{name, reason}]} and the safetensors head as
// blob 0.
struct WeightsExportRequest {
  std::vector<std::string> include;
  std::vector<ExportCandidate> candidates;
  std::vector<std::pair<std::string, std::string>> metadata;
};
Result<WeightsReply> weights_export(const WeightsExportRequest& request);

// permute: `bytes` of tensor `layout` permuted (to row-major, or from it)
// -> {} and the permuted bytes as blob 0.
Result<WeightsReply> weights_permute(std::string_view bytes, const NamedTensor& layout, bool to_row_major);

// range_plan: plan_range_hashes -> {count, range_of, streams: [[start,
// [[end, distinct]...]]...]}.
Result<WeightsReply> weights_range_plan(const std::vector<ByteRange>& ranges, uint64_t size);

}  // namespace etpack
