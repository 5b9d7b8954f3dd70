// validate: checks a .pte and its .ptd files the way a demanding runtime
// would, and reports every problem found instead of stopping at the first.
// Input is untrusted; nothing here reads outside the given bytes, trusts a
// size from the file for an allocation, or aborts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/blob.h"
#include "core/json.h"

namespace etpack {

struct Finding {
  std::string code;                // stable, e.g. "SEGMENT_OUT_OF_BOUNDS"
  std::string message;             // readable, names the values at fault
  std::string file;                // "pte" or the .ptd's name
  std::optional<uint64_t> offset;  // byte offset in that file, when known
  std::string path;                // e.g. "execution_plan[0].values[12]"
};

struct ValidationReport {
  std::vector<Finding> errors;
  std::vector<Finding> warnings;
  bool ok() const { return errors.empty(); }
  // {"ok", "errors": [{code, message, file, offset|null, path|null}], "warnings": [...]}
  Json to_json() const;
};

// `ptds` are (name, bytes) pairs; external tensors are resolved against them.
ValidationReport validate_artifacts(const Blob& pte, const std::vector<std::pair<std::string, Blob>>& ptds);

// Validates one .ptd on its own.
ValidationReport validate_ptd(const std::string& name, const Blob& ptd);

}  // namespace etpack
