// Where a program's in-file tensor data is, for the plan graph's values
// (inspect/program_graph.h): a constant's or a mutable buffer's initial data as
// an absolute file offset, found as the runtime finds it.
#pragma once

#include <optional>
#include <string>

#include "core/json.h"
#include "read/file_source.h"
#include "read/program_tensors.h"
#include "read/pte_reader.h"

namespace etpack {

// {"kind", "where", "offset", "size", "key", "file"} (the graph's "data"):
// constant() for a TensorData::kConstant tensor (constant segment or
// constant_buffer), mutable_data() for kMutable (mutable_data_segments[0]);
// base() with offset, key and file null. "size" is the tensor's bytes.
class DataLocator {
 public:
  DataLocator(const FileSource& file, const PteFile& pte) : file_(file), pte_(pte) {}
  Json constant(const TensorView& t);
  Json mutable_data(const TensorView& t);
  static Json base(const char* kind, std::optional<std::string> where, const TensorView& t);

 private:
  Json in_segment(const char* kind, const std::string& name, const TableValue& sub, const TensorView& t);
  const FileSource& file_;
  const PteFile& pte_;
};

// Member positions in base()'s object, for callers filling them in.
constexpr size_t kDataOffset = 2, kDataKey = 4, kDataFile = 5;

}  // namespace etpack
