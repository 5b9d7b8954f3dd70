// Checkpoint tensors (safetensors) matched to a program's tensors by name,
// dtype, shape and dim order, for import (`weights`: the .ptd of the
// external tensors; `repack --weights`: the .pte's named constants) and the
// choice of what export (`export-weights`) writes. Pure planning: no tensor
// byte is read here; callers move the bytes as the plan says.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/result.h"
#include "read/safetensors_reader.h"
#include "read/shared_names.h"

namespace etpack {

struct CheckpointFile {
  std::string file;  // as named in messages
  SafetensorsHeader header;
};

struct CheckpointTensor {
  // After renaming: a view of the header's own name (no copy per tensor:
  // a checkpoint can hold a million), or of Checkpoints::renamed.
  std::string_view name;
  size_t file = 0;   // index into Checkpoints::files
  size_t tensor = 0;  // index into that file's header.tensors
};

// Movable, not copyable: names are views of strings it owns (a move keeps
// every element where it is; a copy would view the original's).
struct Checkpoints {
  Checkpoints() = default;
  Checkpoints(Checkpoints&&) = default;
  Checkpoints& operator=(Checkpoints&&) = default;
  Checkpoints(const Checkpoints&) = delete;
  Checkpoints& operator=(const Checkpoints&) = delete;

  std::vector<CheckpointFile> files;
  std::vector<CheckpointTensor> tensors;  // every tensor of every file, in file then header order
  std::deque<std::string> renamed;        // names a rename rule changed (a deque: views stay valid as it grows)
  // Indices into `tensors` sorted by name: 4 bytes a tensor, where a hash
  // map of a million names cost tens (issue 28: memory of a huge header).
  std::vector<uint32_t> by_name;
  const SafetensorsTensor& at(size_t i) const { return files[tensors[i].file].header.tensors[tensors[i].tensor]; }
  // The index into `tensors` of the one named `name` (binary search).
  std::optional<size_t> find(std::string_view name) const;
};

// Every tensor of `files`, renamed by the first rule (from, to) whose
// `from` prefixes its name. SAFETENSORS_DUPLICATE when two tensors end up
// with one name (naming both files).
Result<Checkpoints> collect_checkpoints(std::vector<CheckpointFile> files,
                                        const std::vector<std::pair<std::string, std::string>>& rename);

enum class WeightsTarget : uint8_t {
  kExternal,  // the program's EXTERNAL tensors: one .ptd entry per name
  kConstant,  // the program's constants: each tensor's constant_buffer entry
};

struct WeightsProblem {
  std::string name;
  std::string problem;  // "missing", "dtype", "shape", "layout", "shared"
  std::string message;
};

struct WeightsAssignment {
  size_t tensor = 0;      // index into the program tensor list
  size_t checkpoint = 0;  // index into Checkpoints::tensors
  bool permute = false;   // row-major bytes must be permuted into the tensor's dim_order
  // kConstant, tied weights (one constant buffer, several names): the other
  // checkpoint tensors given for the same buffer, each under its own name.
  // Their bytes must equal `checkpoint`'s (the caller compares: planning
  // reads no tensor byte); different bytes are a mismatch naming both.
  std::vector<size_t> same_as;
};

struct WeightsPlan {
  // kExternal: the first tensor of each name; kConstant: one per constant
  // buffer (every tensor of a buffer gets the same bytes and layout).
  std::vector<WeightsAssignment> assigned;
  std::vector<std::string> written;  // names given bytes, in first-use order
  std::vector<std::string> kept;     // kConstant: named constants the checkpoints do not name
  std::vector<size_t> unused;        // checkpoint tensors no program tensor took
  std::vector<WeightsProblem> problems;  // non-empty: nothing may be written
};

// The plan for `program` (its named tensors; for kConstant also the
// unnamed constants, has_name false, so shared buffers are seen whole).
// Problems, all collected: a name the checkpoints lack (kExternal), a
// dtype or shape that differs — for every tensor of that name that differs,
// each naming its path — one name used at several dim orders (kExternal: one
// entry cannot hold both). A constant buffer shared by several names (tied
// weights) takes one value: given under any one of the names, or under
// several (their bytes compared by the caller: WeightsAssignment::same_as).
WeightsPlan match_weights(const std::vector<NamedTensor>& program, const Checkpoints& checkpoints, WeightsTarget target);

// The WEIGHTS_MISMATCH error for plan.problems ("N tensor(s) do not fit the
// program:" then one line each).
Error weights_mismatch(const std::vector<WeightsProblem>& problems);

// export-weights: which tensors go out. Each input is a named tensor with
// the bytes available for it (nullopt: none found) and where they were
// looked for ("model.ptd", "the .pte's constant_buffer[3]").
struct ExportCandidate {
  NamedTensor tensor;
  std::optional<uint64_t> available;
  std::string source;
};
struct ExportPlan {
  std::vector<size_t> chosen;  // one per name, in first-use order
  std::vector<bool> permute;   // per chosen: the bytes are stored in a non-trivial dim_order
  std::vector<std::pair<std::string, std::string>> skipped;  // (name, reason)
};
// Tensors not matching `include` (glob patterns; empty: all) are left out.
// A name used by tensors of different layouts is WEIGHTS_NAME_CONFLICT
// naming both (one safetensors name can hold one tensor); the same name at
// the same layout is written once. A dtype safetensors cannot express is
// skipped (listed). Bytes missing or short: EXTERNAL_DATA_MISSING naming
// each tensor, the bytes it needs and what was found where.
Result<ExportPlan> plan_export(const std::vector<ExportCandidate>& candidates, const std::vector<std::string>& include);

}  // namespace etpack
