#include "core/result.h"

namespace etpack {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return "OK";
    case ErrorCode::kInvalidArgument: return "INVALID_ARGUMENT";
    case ErrorCode::kInvalidAlignment: return "INVALID_ALIGNMENT";
    case ErrorCode::kDelegateNotInline: return "DELEGATE_NOT_INLINE";
    case ErrorCode::kDelegateIndexOutOfRange: return "DELEGATE_INDEX_OUT_OF_RANGE";
    case ErrorCode::kDelegateDataUnreferenced: return "DELEGATE_DATA_UNREFERENCED";
    case ErrorCode::kProgramHasNamedData: return "PROGRAM_HAS_NAMED_DATA";
    case ErrorCode::kDuplicateKey: return "DUPLICATE_KEY";
    case ErrorCode::kExternalTensorNotFound: return "EXTERNAL_TENSOR_NOT_FOUND";
    case ErrorCode::kShardCapExceeded: return "SHARD_CAP_EXCEEDED";
    case ErrorCode::kInvalidJson: return "INVALID_JSON";
    case ErrorCode::kSchemaMismatch: return "SCHEMA_MISMATCH";
    case ErrorCode::kMalformedFile: return "MALFORMED_FILE";
    case ErrorCode::kUnsupportedVersion: return "UNSUPPORTED_VERSION";
    case ErrorCode::kLimitExceeded: return "LIMIT_EXCEEDED";
    case ErrorCode::kIoError: return "IO_ERROR";
    case ErrorCode::kMissingExternalData: return "MISSING_EXTERNAL_DATA";
    case ErrorCode::kMissingDelegateData: return "MISSING_DELEGATE_DATA";
    case ErrorCode::kInvalidInput: return "INVALID_INPUT";
    case ErrorCode::kInvalidOutput: return "INVALID_OUTPUT";
    case ErrorCode::kLayoutConflict: return "LAYOUT_CONFLICT";
    case ErrorCode::kInternal: return "INTERNAL";
    case ErrorCode::kResourceLimit: return "RESOURCE_LIMIT";
    case ErrorCode::kSafetensorsTruncated: return "SAFETENSORS_TRUNCATED";
    case ErrorCode::kSafetensorsHeaderSize: return "SAFETENSORS_HEADER_SIZE";
    case ErrorCode::kSafetensorsHeader: return "SAFETENSORS_HEADER";
    case ErrorCode::kSafetensorsShape: return "SAFETENSORS_SHAPE";
    case ErrorCode::kSafetensorsOffsets: return "SAFETENSORS_OFFSETS";
    case ErrorCode::kSafetensorsOverlap: return "SAFETENSORS_OVERLAP";
    case ErrorCode::kSafetensorsDuplicate: return "SAFETENSORS_DUPLICATE";
    case ErrorCode::kSafetensorsIndex: return "SAFETENSORS_INDEX";
    case ErrorCode::kWeightsMismatch: return "WEIGHTS_MISMATCH";
    case ErrorCode::kExternalDataMissing: return "EXTERNAL_DATA_MISSING";
    case ErrorCode::kWeightsNameConflict: return "WEIGHTS_NAME_CONFLICT";
  }
  return "INTERNAL";
}

}  // namespace etpack
