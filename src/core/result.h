// Failure as a value: every fallible core function returns Status or
// Result<T>. The core never throws, so the same code runs natively and in
// wasm without exception support, and every error keeps a stable code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace etpack {

// Stable codes. The names (error_code_name) are part of the JS API: never
// rename one. Caller mistakes, malformed files and exceeded limits differ.
enum class ErrorCode : uint8_t {
  kOk = 0,
  kInvalidArgument,           // a caller-supplied value is wrong
  kInvalidAlignment,          // alignment not > 0 / not a power of two
  kDelegateNotInline,         // extracting, but a delegate is not INLINE
  kDelegateIndexOutOfRange,   // delegate index past backend_delegate_data
  kDelegateDataUnreferenced,  // backend_delegate_data entry nobody uses
  kProgramHasNamedData,       // program.named_data set and store has PTE data
  kDuplicateKey,              // same named-data key, different bytes
  kExternalTensorNotFound,    // external constant fqn not in the program
  kShardCapExceeded,          // a buffer bigger than the externalize cap
  kInvalidJson,               // program/JSON text that does not parse
  kSchemaMismatch,            // JSON that parses but does not fit the schema
  kMalformedFile,             // bytes that are not a valid .pte/.ptd
  kUnsupportedVersion,        // a known format at a version we do not read
  kLimitExceeded,             // a safety limit (size, depth, count) was hit
  kIoError,                   // file or stream failure (tools, bindings)
  kMissingExternalData,       // repack: EXTERNAL tensors whose .ptd was not given
  kMissingDelegateData,       // a delegate's named-data key no output would hold (ops/delegate_keys_guard.h)
  kInvalidInput,              // repack: an input fails validation
  kInvalidOutput,             // repack: what it would write fails validation
  kLayoutConflict,            // one named-data key, two tensor layouts
  kInternal,                  // a broken invariant: a bug in executorch-pack
  kResourceLimit,             // untrusted input would cost more memory/work than its size allows
  // safetensors checkpoints and weights matching (read/safetensors_reader.h, ops/weights_*):
  kSafetensorsTruncated,      // shorter than the 8-byte header length
  kSafetensorsHeaderSize,     // header length past the file or above the bound
  kSafetensorsHeader,         // header not strict UTF-8 JSON of the reference's shape
  kSafetensorsShape,          // shape invalid or not matching the byte count
  kSafetensorsOffsets,        // data_offsets invalid, with holes, or not covering the data
  kSafetensorsOverlap,        // two tensors' data overlap
  kSafetensorsDuplicate,      // one tensor name (after renaming) in two checkpoint files
  kSafetensorsIndex,          // a sharded checkpoint's index names a tensor its shard lacks
  kWeightsMismatch,           // checkpoint tensors that do not fit the program's
  kExternalDataMissing,       // export: a tensor's bytes are missing or short
  kWeightsNameConflict,       // export: one name, tensors of different layouts
};

const char* error_code_name(ErrorCode code);

struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)) {}  // NOLINT: implicit on purpose
  bool ok() const { return !error_.has_value(); }
  const Error& error() const { return *error_; }
  Error&& take_error() { return std::move(*error_); }

 private:
  std::optional<Error> error_;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit on purpose
  Result(Error error) : error_(std::move(error)) {}  // NOLINT
  Result(Status status) : error_(status.take_error()) {}  // only a failed Status
  bool ok() const { return value_.has_value(); }
  const Error& error() const { return *error_; }
  Error&& take_error() { return std::move(*error_); }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }

 private:
  std::optional<T> value_;
  std::optional<Error> error_;
};

inline Error make_error(ErrorCode code, std::string message) {
  return Error{code, std::move(message)};
}

}  // namespace etpack

#define ETP_CONCAT_INNER(a, b) a##b
#define ETP_CONCAT(a, b) ETP_CONCAT_INNER(a, b)

// Propagates a failed Status.
#define ETP_TRY(expr)                                   \
  do {                                                  \
    ::etpack::Status etp_status_ = (expr);              \
    if (!etp_status_.ok()) return etp_status_.take_error(); \
  } while (0)

// `ETP_ASSIGN(auto x, f());` binds the value of a Result or propagates its error.
#define ETP_ASSIGN(decl, expr) ETP_ASSIGN_IMPL(ETP_CONCAT(etp_result_, __LINE__), decl, expr)
#define ETP_ASSIGN_IMPL(tmp, decl, expr)          \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.take_error();         \
  decl = std::move(tmp).value()
