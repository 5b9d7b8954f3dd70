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

#include "format/file_source.h"
#include "core/blob.h"
#include "core/json.h"
#include "read/method_allocator.h"

namespace etpack {

struct PteFile;  // read/pte_reader.h

// Finding codes: stable strings, part of the API (never rename one). E is
// an error (the runtime or our readers would reject the file, or read wrong
// bytes), W a warning (legal but odd, wasteful or unverifiable).
namespace finding {
#define FINDING(id, code) constexpr const char* id = code;
#include "validate/findings.def"
#undef FINDING
}  // namespace finding

// What validate judges the files against. By default: the runtime's default
// CMake build of the newest release, with any kernels and backends.
struct ValidateOptions {
  // Target builds that keep the deprecated constant_buffer path (Buck's
  // default; CMake builds before 1.3): a missing constant segment
  // placeholder is then a warning.
  bool deprecated_constant_buffer = false;
  // Target release "major.minor": every feature newer than it is an error
  // (and a release before 1.3 implies deprecated_constant_buffer).
  std::optional<std::pair<int, int>> runtime;
  // The delegate backends the target links: every other one is an error.
  std::optional<std::vector<std::string>> backends;
  // The method allocator the target hands load_method: every method whose
  // minimum (read/method_allocator.h, the .ptd files given counted) is
  // larger is an error naming the bytes missing.
  struct MethodAllocator {
    uint64_t bytes = 0;
    AllocatorArch arch = AllocatorArch::k64Bit;
    bool temp_allocator = true;  // a temp allocator large enough is given too
  };
  std::optional<MethodAllocator> method_allocator;
};

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
ValidationReport validate_artifacts(const Blob& pte, const std::vector<std::pair<std::string, Blob>>& ptds,
                                    const ValidateOptions& options = {});

// Validates one .ptd on its own.
ValidationReport validate_ptd(const std::string& name, const Blob& ptd);

// The same for files given as a head in memory (at least pte_head_size /
// ptd_head_size bytes) and the whole file, possibly external: only the
// heads are parsed; padding past them is checked where the host's peeker
// can read it. kInvalidArgument for a head not in memory or too short.
Result<ValidationReport> validate_artifacts(const FileSource& pte,
                                            const std::vector<std::pair<std::string, FileSource>>& ptds,
                                            const ValidateOptions& options = {});
Result<ValidationReport> validate_ptd(const std::string& name, const FileSource& ptd);

// The ranges inside a .pte's constant and mutable segments that validate
// checks for zeros (between a tensor's data and the next slice), as
// absolute [start, end); read from the head only (at least pte_head_size
// bytes). inspect lists them so a remote file's reader can fetch them
// with the padding. `program` is `pte` as read_pte_program decoded it (not
// decoded again here).
std::vector<std::pair<uint64_t, uint64_t>> pte_padding_in_segments(const FileSource& pte, const PteFile& program);

}  // namespace etpack
