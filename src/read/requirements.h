// requirements: what a .pte (and its .ptd files) needs from the runtime that
// loads it: the earliest ExecuTorch release that reads every feature it
// uses, the delegate backends and kernels it must link, the named data its
// .ptd files must provide. inspect reports it; validate checks it against a
// target release (--runtime) and backend list (--backends).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/blob.h"
#include "core/json.h"
#include "read/program_tensors.h"
#include "read/pte_reader.h"
#include "read/ptd_table.h"

namespace etpack {

// An ExecuTorch release, "major.minor".
struct Release {
  int major = 0;
  int minor = 0;
  bool operator<(const Release& o) const { return major != o.major ? major < o.major : minor < o.minor; }
  std::string text() const { return std::to_string(major) + "." + std::to_string(minor); }
};

// "1.2" (or "1.2.3", "v1.2": the patch and a leading v are ignored);
// nullopt for anything else.
std::optional<Release> parse_release(const std::string& text);

// Feature rows (see requirements.cpp for the table and its sources).
enum class Feature : uint8_t {
  kProgram,              // ET12 flatbuffer, segments, delegates
  kConstantSegment,      // constants outside the flatbuffer
  kMutableData,          // mutable_data_segments
  kExternalTensors,      // EXTERNAL tensor data, resolved from a .ptd
  kNamedDataInPte,       // Program.named_data
  kPtdFile,              // a .ptd file (FT01 / FH01) in the current layout
  kSeveralPtdFiles,      // one program's data split over several .ptd files
  kBFloat16,             // ScalarType BFLOAT16 in scalar_type.fbs
  kDeviceFields,         // ExtraTensorInfo.device_*, ExecutionPlan.non_const_buffer_device
};

struct FeatureUse {
  Feature feature;
  std::string where;  // e.g. "execution_plan[0].values[3]"
};

// The row's text ("mutable_data_segments") and first release.
const char* feature_name(Feature feature);
Release feature_since(Feature feature);

struct ExternalRequirement {
  std::string key;  // fully_qualified_name
  TensorView tensor;  // first use
  std::vector<std::string> methods;  // names of the methods that use it, in order
};

struct Requirements {
  std::vector<FeatureUse> features;  // each feature once, at its first use
  std::vector<std::string> backends;   // distinct delegate ids, in order of first use
  std::vector<std::string> operators;  // distinct "name.overload" (no dot for an empty overload) some KernelCall calls
  std::vector<std::string> unused_operators;  // distinct operator table entries no KernelCall calls (never looked up)
  std::vector<ExternalRequirement> external;
  Release min_runtime() const;  // the latest `since` of `features`
};

// The requirements of a decoded .pte (`head`: the bytes it was decoded
// from). Bounded work: every tensor and operator is visited once.
Requirements pte_requirements(const Blob& head, const PteFile& pte);

// {"minRuntimeVersion", "features": [{feature, since, where}], "backends",
//  "operators", "unusedOperators", "externalData": [{key, dtype, shape, bytes, methods}]}
Json requirements_json(const Requirements& r);

// The requirements of a .ptd's FlatTensor table: the .ptd layout and
// bfloat16 layouts; no backends, operators or external data.
Requirements ptd_requirements(const PtdTable& ptd);

// A .ptd written with the FlatTensor layout of ExecuTorch 0.6 (fields
// tensor_alignment and tensors at ids 1 and 2, segments and named_data at 3
// and 4): runtimes since 0.7 read its field 1 and 2 as segments and
// named_data. Reads only the root table's vtable of `ptd`'s flatbuffer
// (`ptd` holds the file's first bytes); nullopt when it is not that layout
// or cannot be told. The text names the old fields the file sets.
std::optional<std::string> ptd_old_layout_fields(const Blob& ptd);

}  // namespace etpack
