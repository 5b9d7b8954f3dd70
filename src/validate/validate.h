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

#include "read/file_source.h"
#include "core/blob.h"
#include "core/json.h"
#include "read/method_allocator.h"

namespace etpack {

struct PteFile;  // read/pte_reader.h

// Finding codes: stable strings, part of the API (never rename one). E is
// an error (the runtime or our readers would reject the file, or read wrong
// bytes), W a warning (legal but odd, wasteful or unverifiable).
namespace finding {
// The file as a whole
constexpr const char* kFileTooSmall = "FILE_TOO_SMALL";                // E fewer bytes than the identifier needs
constexpr const char* kBadIdentifier = "BAD_IDENTIFIER";              // E not ETxx (.pte) / FTxx (.ptd)
constexpr const char* kUnsupportedVersion = "UNSUPPORTED_VERSION";    // E ETxx != ET12, FTxx != FT01, FlatTensor version != 0
constexpr const char* kTrailingBytes = "TRAILING_BYTES";              // W bytes after the declared data
// Extended headers (eh00, FH01)
constexpr const char* kHeaderMissing = "HEADER_MISSING";              // E a .ptd without FH01
constexpr const char* kHeaderTruncated = "HEADER_TRUNCATED";          // E the file ends inside the header
constexpr const char* kHeaderLengthInvalid = "HEADER_LENGTH_INVALID";  // E below the minimum length
constexpr const char* kHeaderLengthUnusual = "HEADER_LENGTH_UNUSUAL";  // W longer than any known version
constexpr const char* kHeaderSizeLarger = "HEADER_SIZE_LARGER";          // W eh00 program_size / FH01 flatbuffer_size past the segment base, the flatbuffer before it
constexpr const char* kProgramSizeOutOfRange = "PROGRAM_SIZE_OUT_OF_RANGE";    // E eh00 program_size not in [32, file size]
constexpr const char* kFlatbufferRangeInvalid = "FLATBUFFER_RANGE_INVALID";    // E FH01 flatbuffer_offset/size outside the file
constexpr const char* kSegmentBaseOutOfRange = "SEGMENT_BASE_OUT_OF_RANGE";    // E segment_base_offset before the flatbuffer end or past the file
constexpr const char* kSegmentDataPastEnd = "SEGMENT_DATA_PAST_END";           // E base + segment_data_size past the file end
// Flatbuffer structure
constexpr const char* kFlatbufferInvalid = "FLATBUFFER_INVALID";                // E an offset, vtable, vector or string out of bounds, or verifier failure
constexpr const char* kFlatbufferLimitExceeded = "FLATBUFFER_LIMIT_EXCEEDED";  // E nesting or expansion past the safety limits
constexpr const char* kMissingField = "MISSING_FIELD";                          // E a field the runtime requires is absent
constexpr const char* kValidationLimitExceeded = "VALIDATION_LIMIT_EXCEEDED";  // E checks stopped: shared vectors would cost too much work
constexpr const char* kTooManyFindings = "TOO_MANY_FINDINGS";                  // W further findings of this file were dropped
// Segments
constexpr const char* kSegmentsWithoutHeader = "SEGMENTS_WITHOUT_HEADER";  // E segments listed but no eh00 / segment base
constexpr const char* kSegmentDataWithoutSegments = "SEGMENT_DATA_WITHOUT_SEGMENTS";  // E eh00 declares segment data, the program lists no segments
constexpr const char* kSegmentOutOfBounds = "SEGMENT_OUT_OF_BOUNDS";      // E a segment past the segment data or the file
constexpr const char* kSegmentsUnsorted = "SEGMENTS_UNSORTED";            // E segment offsets decrease
constexpr const char* kSegmentsOverlap = "SEGMENTS_OVERLAP";              // E a segment starts inside the previous one
constexpr const char* kSegmentMisaligned = "SEGMENT_MISALIGNED";          // W offset not a multiple of the segment alignment
constexpr const char* kSegmentUnreferenced = "SEGMENT_UNREFERENCED";      // W nothing refers to the segment
constexpr const char* kSegmentIndexOutOfRange = "SEGMENT_INDEX_OUT_OF_RANGE";  // E a segment index past `segments`
constexpr const char* kPaddingNotZero = "PADDING_NOT_ZERO";               // W padding holds non-zero bytes
constexpr const char* kPaddingLarge = "PADDING_LARGE";                    // W a gap of >= 64 KiB between regions
// Constants and mutable data
constexpr const char* kConstantsInBoth = "CONSTANTS_IN_BOTH";  // E constant_buffer and constant_segment both used
constexpr const char* kSubsegmentOffsetOutOfRange = "SUBSEGMENT_OFFSET_OUT_OF_RANGE";  // E an offset past its segment
constexpr const char* kSubsegmentOffsetsUnsorted = "SUBSEGMENT_OFFSETS_UNSORTED";      // E offsets decrease
constexpr const char* kMutableDataMissing = "MUTABLE_DATA_MISSING";            // E a mutable tensor, no mutable_data_segments
constexpr const char* kMutableSegmentsMultiple = "MUTABLE_SEGMENTS_MULTIPLE";  // E more than one mutable_data_segments entry
constexpr const char* kTensorDataIndexOutOfRange = "TENSOR_DATA_INDEX_OUT_OF_RANGE";  // E data_buffer_idx past the offsets/buffers
constexpr const char* kTensorDataOutOfBounds = "TENSOR_DATA_OUT_OF_BOUNDS";  // E tensor bytes past the segment end
constexpr const char* kTensorDataOverlapsNext = "TENSOR_DATA_OVERLAPS_NEXT";  // E tensor bytes run into the next slice
constexpr const char* kConstantBufferSizeMismatch = "CONSTANT_BUFFER_SIZE_MISMATCH";  // E inline storage size != tensor bytes
// Tensors
constexpr const char* kTensorScalarTypeInvalid = "TENSOR_SCALAR_TYPE_INVALID";  // E not a ScalarType value
constexpr const char* kTensorSizesInvalid = "TENSOR_SIZES_INVALID";        // E missing, negative, rank > 16 or byte size overflows
constexpr const char* kTensorDimOrderInvalid = "TENSOR_DIM_ORDER_INVALID";  // E missing, wrong length or not a permutation
constexpr const char* kTensorStorageOffset = "TENSOR_STORAGE_OFFSET";      // E non-zero storage_offset (unsupported by the runtime)
constexpr const char* kValueIndexOutOfRange = "VALUE_INDEX_OUT_OF_RANGE";  // E a value index (inputs, outputs, chains, instruction args) past the method's values
constexpr const char* kOperatorIndexOutOfRange = "OPERATOR_INDEX_OUT_OF_RANGE";  // E a KernelCall's op_index past the method's operators
constexpr const char* kInstructionIndexOutOfRange = "INSTRUCTION_INDEX_OUT_OF_RANGE";  // E a JumpFalseCall past its chain's instructions
// Delegates
constexpr const char* kDelegateReferenceMissing = "DELEGATE_REFERENCE_MISSING";  // E no `processed` reference
constexpr const char* kDelegateLocationInvalid = "DELEGATE_LOCATION_INVALID";    // E neither INLINE nor SEGMENT
constexpr const char* kDelegateIndexOutOfRange = "DELEGATE_INDEX_OUT_OF_RANGE";  // E past backend_delegate_data / segments
constexpr const char* kDelegateDataUnreferenced = "DELEGATE_DATA_UNREFERENCED";  // W backend_delegate_data entry no delegate uses
// Named data
constexpr const char* kDuplicateKey = "DUPLICATE_KEY";                // E a key listed twice in one file (.ptd: one per repeated key, counting its repeats; .pte: a repeat on other data)
constexpr const char* kDuplicateKeySameData = "DUPLICATE_KEY_SAME_DATA";  // W a .pte key repeated on the same segment (the lookup finds the first)
constexpr const char* kDuplicateKeyAcrossFiles = "DUPLICATE_KEY_ACROSS_FILES";  // E a key in two of the .ptd files given (one per pair of files)
constexpr const char* kNamedDataKeyMissing = "NAMED_DATA_KEY_MISSING";  // E an entry without a key
constexpr const char* kLayoutInvalid = "LAYOUT_INVALID";                // E .ptd tensor_layout with a bad type, sizes or dim order
constexpr const char* kLayoutLargerThanData = "LAYOUT_LARGER_THAN_DATA";    // E the layout needs more bytes than its segment has
constexpr const char* kLayoutSmallerThanData = "LAYOUT_SMALLER_THAN_DATA";  // W the segment holds more bytes than the layout needs
// External tensors (.pte against its .ptd files)
constexpr const char* kExternalTensorUnresolved = "EXTERNAL_TENSOR_UNRESOLVED";  // E no .ptd given to resolve it (load_method: InvalidState)
constexpr const char* kExternalTensorNotFound = "EXTERNAL_TENSOR_NOT_FOUND";    // E in none of the given .ptd files
constexpr const char* kExternalTensorNoName = "EXTERNAL_TENSOR_NO_NAME";        // E EXTERNAL without fully_qualified_name
constexpr const char* kExternalTensorNoLayout = "EXTERNAL_TENSOR_NO_LAYOUT";    // E the .ptd entry has no tensor_layout
constexpr const char* kExternalTensorTypeMismatch = "EXTERNAL_TENSOR_TYPE_MISMATCH";    // E scalar types differ
constexpr const char* kExternalTensorShapeMismatch = "EXTERNAL_TENSOR_SHAPE_MISMATCH";  // E sizes or dim order differ
constexpr const char* kExternalTensorSizeMismatch = "EXTERNAL_TENSOR_SIZE_MISMATCH";    // E segment bytes != tensor bytes
constexpr const char* kTensorNameShared = "TENSOR_NAME_SHARED";  // W one fully_qualified_name on tensors of different layouts (legal; no .ptd or safetensors entry fits both)
// What the runtime refuses or misloads (../shared/RUNTIME.md, upstream runtime/executor/program.cpp, method.cpp)
constexpr const char* kConstantSegmentNoPlaceholder = "CONSTANT_SEGMENT_NO_PLACEHOLDER";  // E (W with deprecated_constant_buffer) constant_segment.offsets empty or absent
constexpr const char* kPaddingAfterSegmentNotZero = "PADDING_AFTER_SEGMENT_NOT_ZERO";  // E non-zero bytes right after a segment: its size was cut
constexpr const char* kPaddingBeforeSegmentNotZero = "PADDING_BEFORE_SEGMENT_NOT_ZERO";  // E the byte right before a segment is not zero: its offset moved
constexpr const char* kSlicePaddingNotZero = "SLICE_PADDING_NOT_ZERO";  // E non-zero bytes between a tensor's data and the next slice: an offset moved
constexpr const char* kSegmentBaseMoved = "SEGMENT_BASE_MOVED";  // E segment base is not the program end rounded up to any alignment
constexpr const char* kTensorListItemInvalid = "TENSOR_LIST_ITEM_INVALID";  // E a TensorList item that is no Tensor value (InvalidProgram / InvalidType)
// What load_method refuses (upstream method.cpp parse_values, tensor_parser*.cpp, hierarchical_allocator.h)
constexpr const char* kOptionalTensorListItemInvalid = "OPTIONAL_TENSOR_LIST_ITEM_INVALID";  // E an item neither -1 nor an earlier Tensor/Null value
constexpr const char* kIntListItemInvalid = "INT_LIST_ITEM_INVALID";  // E an IntList item outside the values (InvalidProgram)
constexpr const char* kValueNull = "VALUE_NULL";  // E an EValue (not Null) without its value, or of an unknown KernelTypes (InvalidProgram)
constexpr const char* kTensorDynamismUnsupported = "TENSOR_DYNAMISM_UNSUPPORTED";  // E shape_dynamism DYNAMIC_UNBOUND (NotSupported)
constexpr const char* kTensorSizesOverflow = "TENSOR_SIZES_OVERFLOW";  // E a stride above INT32_MAX: signed overflow in the runtime's tensor parser
constexpr const char* kPlannedBufferSizeNegative = "PLANNED_BUFFER_SIZE_NEGATIVE";  // E a non_const_buffer_sizes entry < 0 (InvalidProgram)
constexpr const char* kPlannedMemoryIdInvalid = "PLANNED_MEMORY_ID_INVALID";  // E memory_id 0 or past non_const_buffer_sizes (InvalidArgument)
constexpr const char* kPlannedTensorPastBuffer = "PLANNED_TENSOR_PAST_BUFFER";  // E offset + nbytes past its planned buffer (MemoryAllocationFailed)
constexpr const char* kDelegateSegmentWithoutSegments = "DELEGATE_SEGMENT_WITHOUT_SEGMENTS";  // E a SEGMENT delegate, no segment base (NotFound)
constexpr const char* kConstantOffsetMoved = "CONSTANT_OFFSET_MOVED";  // E a constant's offset no aligned writer would give: it reads other bytes
constexpr const char* kPtdOldLayout = "PTD_OLD_LAYOUT";  // E a .ptd in the FlatTensor layout of ExecuTorch 0.6
// Against a target runtime (ValidateOptions)
constexpr const char* kFeatureTooNew = "FEATURE_TOO_NEW";  // E a feature newer than the target release
constexpr const char* kBackendNotListed = "BACKEND_NOT_LISTED";  // E a delegate backend not in the target's list
constexpr const char* kMethodAllocatorTooSmall = "METHOD_ALLOCATOR_TOO_SMALL";  // E a method needs more than the target's method allocator
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
