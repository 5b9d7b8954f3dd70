// Parts of inspect's .pte summary that interpret values: decoded compile
// specs and the largest constants.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "core/blob.h"
#include "core/json.h"
#include "model/fb_value.h"
#include "read/program_tensors.h"

namespace etpack {

// Where the model's weights are, from bytesByCategory and the delegates'
// decoded blobs: {"constants" (the constant segment or buffers),
// "namedData" (the .pte's named data: mostly delegates' weights by key),
// "delegateConstants" (constant regions inside delegate blobs),
// "delegateGraphs" (the rest of the blobs), "total" (constants + namedData +
// delegateConstants)}. Bytes of this file only; a .ptd's are its own.
Json weights_json(const Json& bytes_by_category, uint64_t delegate_constants);

// One CompileSpec: {"key": s | null, "bytes": n, "value": s | n | null}.
// The value is shown only when it is printable ASCII text (up to 256 bytes)
// or a 1-, 4- or 8-byte little-endian integer of magnitude below 2^31, so
// raw binary never reaches a terminal.
Json compile_spec_json(const TableValue& spec);

// The 10 largest in-file constants (constant segment or constant_buffer;
// a slice shared by several tensors counts once, at its first tensor),
// largest first: [{"name": fully_qualified_name, else "execution_plan[p].values[v]",
// "bytes", "dtype", "shape", "where": "constant_segment.offsets[i]" |
// "constant_buffer[i]"}]. Fed each tensor of the program by the caller's
// own walk (inspect views every tensor once for all its lists).
class LargestConstants {
 public:
  explicit LargestConstants(const TableValue& program);
  void add(size_t plan, size_t value, const TensorView& t);
  Json json();

 private:
  struct Entry {
    uint64_t bytes;
    TensorView view;
    std::string name;   // fully_qualified_name, else the value's path
    std::string where;  // the slice it reads
  };
  std::string storage_;
  std::vector<Entry> entries_;
  std::unordered_set<uint64_t> seen_;  // data_buffer_idx already counted
};

}  // namespace etpack
